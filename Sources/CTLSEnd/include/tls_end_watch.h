// How a TLS connection ended: with the server's close_notify, or without it. See tls_end_watch.c.
#ifndef SLUICE_TLS_END_WATCH_H
#define SLUICE_TLS_END_WATCH_H

/// A watch of one connection's end, shared by the connection and the transfer that asked.
struct sluice_tls_end_watch;

/// How a watched connection ended so far.
enum sluice_tls_ending {
    /// The connection is open and no close_notify came.
    sluice_tls_ending_open = 0,
    /// The server's close_notify was read.
    sluice_tls_ending_notified = 1,
    /// The connection was freed without a close_notify read.
    sluice_tls_ending_bare = 2,
};

/// Starts watching how `connection` (an OpenSSL `SSL *`) ends; NULL when it cannot be watched. The
/// caller holds one reference and lets it go with `sluice_tls_end_watch_release`. A watch an
/// earlier transfer left on the connection is let go by the connection.
struct sluice_tls_end_watch *sluice_tls_end_watch_start(void *connection);

/// How the watched connection ended so far (an `enum sluice_tls_ending`).
int sluice_tls_end_watch_ending(struct sluice_tls_end_watch *watch);

/// Lets go of the caller's reference.
void sluice_tls_end_watch_release(struct sluice_tls_end_watch *watch);

#endif
