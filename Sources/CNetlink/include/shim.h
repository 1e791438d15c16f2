// The kernel's netlink ABI for Sluice's reachability monitor: message types, attribute numbers,
// groups and structs from <linux/netlink.h> and <linux/rtnetlink.h>, hardware types from glibc's
// <net/if_arp.h> (not <linux/if_arp.h>, whose <linux/if.h> clashes with glibc's <net/if.h>), and
// three calls that glibc declares only under _GNU_SOURCE, wrapped in shim.c (the third names the
// transport's loop thread), and a read of a TCP socket's byte counters, whose struct only the
// kernel's <linux/tcp.h> has in full (it cannot be included next to glibc's <netinet/tcp.h>).
#ifndef SLUICE_CNETLINK_SHIM_H
#define SLUICE_CNETLINK_SHIM_H

#include <stdint.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if_arp.h>

// Operational states from <linux/if.h> (RFC 2863), which cannot be included next to glibc's <net/if.h>.
#define SLUICE_IF_OPER_UNKNOWN 0
#define SLUICE_IF_OPER_DORMANT 5
#define SLUICE_IF_OPER_UP 6

/// Moves the calling thread into the network namespace that `fd` (an open /run/netns file) names:
/// setns(fd, CLONE_NEWNET). Returns 0, or -1 with errno set.
int sluice_enter_network_namespace(int fd);

/// Creates a non-blocking, close-on-exec eventfd used to wake a thread blocked in poll().
/// Returns the descriptor, or -1 with errno set.
int sluice_make_wake_descriptor(void);

/// Names the calling thread for debuggers and `top -H`: pthread_setname_np(pthread_self(), name).
/// Linux keeps at most 15 bytes of a name. Returns 0, or an error number.
int sluice_name_current_thread(const char *name);

/// Sets `bytes` to how many bytes a TCP socket has received and had acknowledged by its peer
/// (TCP_INFO's tcpi_bytes_received plus tcpi_bytes_acked, Linux 4.2 and later), payload only:
/// TLS records and partial header lines count as they arrive. Returns 0, or -1 when the socket
/// gives no such counters (errno set, or ENOPROTOOPT for a kernel whose tcp_info lacks them).
int sluice_tcp_bytes_moved(int fd, uint64_t *bytes);

#endif
