// setns(), eventfd() and pthread_setname_np() are declared by glibc only with _GNU_SOURCE, which
// Swift's Glibc module is not built with; these wrappers are compiled with it. TCP_INFO is read
// into the kernel's own struct tcp_info (<linux/tcp.h>), which glibc's header cuts short.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include "shim.h"

int sluice_enter_network_namespace(int fd) {
    return setns(fd, CLONE_NEWNET);
}

int sluice_make_wake_descriptor(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

int sluice_name_current_thread(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

int sluice_tcp_bytes_moved(int fd, uint64_t *bytes) {
    struct tcp_info info;
    memset(&info, 0, sizeof info);
    socklen_t length = sizeof info;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return -1;
    // An older kernel fills in a shorter struct.
    if (length < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received) {
        errno = ENOPROTOOPT;
        return -1;
    }
    *bytes = info.tcpi_bytes_received + info.tcpi_bytes_acked;
    return 0;
}
