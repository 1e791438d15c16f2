// Whether the server ended a TLS connection with close_notify: told by OpenSSL's info callback as
// the alert is read, and settled as OpenSSL frees the connection. libcurl frees a connection it
// closes before it reports the transfer on it finished, and resets the connection's shutdown state
// first, so that state cannot be read then. OpenSSL's functions are found at run time in the
// OpenSSL libcurl loaded: Sluice does not link OpenSSL (see Docs/Decisions.md, TLS).
#include "tls_end_watch.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct sluice_tls_end_watch {
    /// 2 while both the connection (its ex_data slot) and the transfer hold it.
    _Atomic int references;
    /// An `enum sluice_tls_ending`.
    _Atomic int ending;
};

static struct {
    int slot;
    int (*set_data)(void *connection, int slot, void *data);
    void *(*get_data)(const void *connection, int slot);
    void (*set_info_callback)(void *connection, void (*callback)(const void *connection, int where, int value));
} openssl = { -1, NULL, NULL, NULL };

static pthread_once_t lookup_once = PTHREAD_ONCE_INIT;

void sluice_tls_end_watch_release(struct sluice_tls_end_watch *watch) {
    if (atomic_fetch_sub(&watch->references, 1) == 1) {
        free(watch);
    }
}

/// Moves an open watch to `ending`; a settled one keeps what it says.
static void settle(struct sluice_tls_end_watch *watch, int ending) {
    int open = sluice_tls_ending_open;
    atomic_compare_exchange_strong(&watch->ending, &open, ending);
}

/// The slot's free function (CRYPTO_EX_free), called as OpenSSL frees an `SSL`.
static void slot_freed(void *connection, void *pointer, void *data, int index, long argument, void *user) {
    (void)connection; (void)data; (void)index; (void)argument; (void)user;
    if (pointer == NULL) {
        return;
    }
    settle(pointer, sluice_tls_ending_bare);
    sluice_tls_end_watch_release(pointer);
}

/// The connection's info callback: a close_notify alert read (SSL_CB_READ_ALERT, 0x4004; the
/// alert's description, 0 for close_notify, in the value's low byte) settles its watch.
static void info(const void *connection, int where, int value) {
    if ((where & 0x4004) != 0x4004 || (value & 0xFF) != 0) {
        return;
    }
    struct sluice_tls_end_watch *watch = openssl.get_data(connection, openssl.slot);
    if (watch != NULL) {
        settle(watch, sluice_tls_ending_notified);
    }
}

static void look_up(void) {
    typedef int (*new_index_function)(int, long, void *, void *, void *, void *);
    new_index_function new_index = (new_index_function)dlsym(RTLD_DEFAULT, "CRYPTO_get_ex_new_index");
    openssl.set_data = (int (*)(void *, int, void *))dlsym(RTLD_DEFAULT, "SSL_set_ex_data");
    openssl.get_data = (void *(*)(const void *, int))dlsym(RTLD_DEFAULT, "SSL_get_ex_data");
    openssl.set_info_callback =
        (void (*)(void *, void (*)(const void *, int, int)))dlsym(RTLD_DEFAULT, "SSL_set_info_callback");
    if (new_index == NULL || openssl.set_data == NULL || openssl.get_data == NULL
        || openssl.set_info_callback == NULL) {
        return;
    }
    // CRYPTO_EX_INDEX_SSL is 0; no new or dup function (libcurl never duplicates an SSL).
    openssl.slot = new_index(0, 0, NULL, NULL, NULL, (void *)slot_freed);
}

/// Whether watches can be made: the OpenSSL libcurl loaded has the functions they need. Finds them
/// on the first call (thread-safe).
static int available(void) {
    pthread_once(&lookup_once, look_up);
    return openssl.slot >= 0;
}

struct sluice_tls_end_watch *sluice_tls_end_watch_start(void *connection) {
    if (!available() || connection == NULL) {
        return NULL;
    }
    struct sluice_tls_end_watch *watch = calloc(1, sizeof(struct sluice_tls_end_watch));
    if (watch == NULL) {
        return NULL;
    }
    atomic_init(&watch->references, 2);
    atomic_init(&watch->ending, sluice_tls_ending_open);
    struct sluice_tls_end_watch *earlier = openssl.get_data(connection, openssl.slot);
    if (openssl.set_data(connection, openssl.slot, watch) != 1) {
        free(watch);
        return NULL;
    }
    if (earlier != NULL) {
        sluice_tls_end_watch_release(earlier);
    }
    openssl.set_info_callback(connection, info);
    return watch;
}

int sluice_tls_end_watch_ending(struct sluice_tls_end_watch *watch) {
    return atomic_load(&watch->ending);
}
