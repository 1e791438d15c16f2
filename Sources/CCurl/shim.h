// Typed wrappers around libcurl's variadic calls, which Swift cannot call directly.
// Each wrapper fixes the type of the third argument so the compiler checks it.
#ifndef SLUICE_CCURL_SHIM_H
#define SLUICE_CCURL_SHIM_H

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/eventfd.h>

static inline CURLcode sluice_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sluice_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sluice_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sluice_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sluice_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode sluice_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode sluice_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode sluice_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

static inline CURLcode sluice_easy_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode sluice_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode sluice_easy_setopt_read_function(CURL *handle, curl_read_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
}

static inline CURLcode sluice_easy_setopt_seek_function(CURL *handle, curl_seek_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, callback);
}

/// CURLOPT_PREREQFUNCTION: called before each attempt to send the request, on a new or reused
/// connection (libcurl calls it again when it retries on a fresh connection).
static inline CURLcode sluice_easy_setopt_prereq_function(CURL *handle, curl_prereq_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
}

/// CURLOPT_SOCKOPTFUNCTION: called for every socket libcurl opens for a connection, before it
/// connects.
static inline CURLcode sluice_easy_setopt_sockopt_function(CURL *handle, curl_sockopt_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_SOCKOPTFUNCTION, callback);
}

/// CURLOPT_CLOSESOCKETFUNCTION: closes, instead of libcurl, every socket libcurl opened.
static inline CURLcode sluice_easy_setopt_closesocket_function(CURL *handle, curl_closesocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, callback);
}

static inline CURLcode sluice_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *list) {
    return curl_easy_setopt(handle, option, list);
}

/// A blob option (CURLOPT_CAINFO_BLOB, CURLOPT_SSLCERT_BLOB, CURLOPT_SSLKEY_BLOB): libcurl copies
/// the bytes. NULL data clears the option.
static inline CURLcode sluice_easy_setopt_blob(CURL *handle, CURLoption option, const void *data, size_t length) {
    if (data == NULL) {
        return curl_easy_setopt(handle, option, (struct curl_blob *)NULL);
    }
    struct curl_blob blob = { (void *)data, length, CURL_BLOB_COPY };
    return curl_easy_setopt(handle, option, &blob);
}

/// The OpenSSL `SSL *` of the connection a transfer uses, or NULL when libcurl uses another TLS
/// library or the connection has no TLS. Valid while the transfer runs (in its callbacks).
static inline void *sluice_easy_openssl_connection(CURL *handle) {
    struct curl_tlssessioninfo *info = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || info == NULL) {
        return NULL;
    }
    if (info->backend != CURLSSLBACKEND_OPENSSL) {
        return NULL;
    }
    return info->internals;
}

/// OpenSSL's functions for reading a peer's certificates, found at run time in the OpenSSL that
/// libcurl loaded (Sluice does not link OpenSSL itself). All NULL when it is not there.
struct sluice_openssl_functions {
    void *(*get_peer_chain)(const void *ssl);
    void *(*get_verified_chain)(const void *ssl);
    int (*stack_count)(const void *stack);
    void *(*stack_value)(const void *stack, int index);
    int (*certificate_der)(const void *certificate, unsigned char **out);
    void (*free_memory)(void *pointer, const char *file, int line);
    const char *(*version)(const void *ssl);
    const void *(*current_cipher)(const void *ssl);
    const char *(*cipher_name)(const void *cipher);
    unsigned char *(*sha256)(const unsigned char *data, size_t length, unsigned char *digest);
    void (*alpn_selected)(const void *ssl, const unsigned char **data, unsigned int *length);
};

static inline struct sluice_openssl_functions sluice_openssl_lookup(void) {
    struct sluice_openssl_functions functions;
    functions.get_peer_chain = (void *(*)(const void *))dlsym(RTLD_DEFAULT, "SSL_get_peer_cert_chain");
    functions.get_verified_chain = (void *(*)(const void *))dlsym(RTLD_DEFAULT, "SSL_get0_verified_chain");
    functions.stack_count = (int (*)(const void *))dlsym(RTLD_DEFAULT, "OPENSSL_sk_num");
    functions.stack_value = (void *(*)(const void *, int))dlsym(RTLD_DEFAULT, "OPENSSL_sk_value");
    functions.certificate_der = (int (*)(const void *, unsigned char **))dlsym(RTLD_DEFAULT, "i2d_X509");
    functions.free_memory = (void (*)(void *, const char *, int))dlsym(RTLD_DEFAULT, "CRYPTO_free");
    functions.version = (const char *(*)(const void *))dlsym(RTLD_DEFAULT, "SSL_get_version");
    functions.current_cipher = (const void *(*)(const void *))dlsym(RTLD_DEFAULT, "SSL_get_current_cipher");
    functions.cipher_name = (const char *(*)(const void *))dlsym(RTLD_DEFAULT, "SSL_CIPHER_get_name");
    functions.sha256 = (unsigned char *(*)(const unsigned char *, size_t, unsigned char *))dlsym(RTLD_DEFAULT, "SHA256");
    functions.alpn_selected =
        (void (*)(const void *, const unsigned char **, unsigned int *))dlsym(RTLD_DEFAULT, "SSL_get0_alpn_selected");
    return functions;
}

/// OpenSSL's message digests (EVP), found at run time like `sluice_openssl_functions`: a
/// download's checksum (SHA-256 and others) without Sluice linking a crypto library. All NULL when
/// OpenSSL is not loaded.
struct sluice_openssl_digest_functions {
    const void *(*digest_by_name)(const char *name);
    void *(*context_new)(void);
    int (*initialize)(void *context, const void *digest, void *engine);
    int (*update)(void *context, const void *data, size_t length);
    int (*final)(void *context, unsigned char *output, unsigned int *length);
    void (*context_free)(void *context);
};

static inline struct sluice_openssl_digest_functions sluice_openssl_digest_lookup(void) {
    struct sluice_openssl_digest_functions functions;
    functions.digest_by_name = (const void *(*)(const char *))dlsym(RTLD_DEFAULT, "EVP_get_digestbyname");
    functions.context_new = (void *(*)(void))dlsym(RTLD_DEFAULT, "EVP_MD_CTX_new");
    functions.initialize = (int (*)(void *, const void *, void *))dlsym(RTLD_DEFAULT, "EVP_DigestInit_ex");
    functions.update = (int (*)(void *, const void *, size_t))dlsym(RTLD_DEFAULT, "EVP_DigestUpdate");
    functions.final = (int (*)(void *, unsigned char *, unsigned int *))dlsym(RTLD_DEFAULT, "EVP_DigestFinal_ex");
    functions.context_free = (void (*)(void *))dlsym(RTLD_DEFAULT, "EVP_MD_CTX_free");
    return functions;
}

/// The result code of a finished transfer (CURLMsg keeps it in a union Swift cannot name).
static inline CURLcode sluice_msg_result(const CURLMsg *message) {
    return message->data.result;
}

/// Constants that are macros in curl.h, which Swift cannot import.
static const size_t SLUICE_WRITEFUNC_PAUSE = CURL_WRITEFUNC_PAUSE;
static const size_t SLUICE_READFUNC_PAUSE = CURL_READFUNC_PAUSE;
static const size_t SLUICE_READFUNC_ABORT = CURL_READFUNC_ABORT;
static const int SLUICE_SEEKFUNC_OK = CURL_SEEKFUNC_OK;
static const int SLUICE_SEEKFUNC_CANTSEEK = CURL_SEEKFUNC_CANTSEEK;
static const int SLUICE_PREREQFUNC_OK = CURL_PREREQFUNC_OK;
static const int SLUICE_PREREQFUNC_ABORT = CURL_PREREQFUNC_ABORT;
static const int SLUICE_SOCKOPT_OK = CURL_SOCKOPT_OK;
static const int SLUICE_PAUSE_ALL = CURLPAUSE_ALL;
static const int SLUICE_PAUSE_CONT = CURLPAUSE_CONT;
static const long SLUICE_PIPE_MULTIPLEX = CURLPIPE_MULTIPLEX;
static const long SLUICE_GLOBAL_DEFAULT = CURL_GLOBAL_DEFAULT;
/// The longest response header line libcurl accepts; a longer one fails with CURLE_OUT_OF_MEMORY.
static const int SLUICE_MAX_HTTP_HEADER = CURL_MAX_HTTP_HEADER;

/// A non-blocking, close-on-exec eventfd, used to wake the transport's loop from other threads.
static inline int sluice_eventfd(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

/// Asks OpenSSL, when libcurl uses it, not to free its global state at exit: called before
/// curl_global_init, whose OpenSSL initialization otherwise registers OPENSSL_cleanup with atexit.
/// That cleanup runs on the exiting thread while the transport's loop thread may still be inside
/// OpenSSL (initializing it, in a TLS handshake or a transfer), which then crashes on freed locks
/// and tables. The process's memory goes away with it anyway. The first initialization decides:
/// OpenSSL registers its handler, or not, once. Found at run time, as libcurl may use another TLS
/// library (OPENSSL_INIT_NO_ATEXIT is OpenSSL 1.1.1b's and later's).
static inline void sluice_openssl_skip_exit_cleanup(void) {
    typedef int (*init_crypto_function)(uint64_t options, const void *settings);
    init_crypto_function init_crypto = (init_crypto_function)dlsym(RTLD_DEFAULT, "OPENSSL_init_crypto");
    if (init_crypto != NULL) {
        (void)init_crypto(0x00080000L /* OPENSSL_INIT_NO_ATEXIT */, NULL);
    }
}

/// The version information of the linked libcurl (CURLVERSION_NOW is a macro Swift cannot see).
static inline const curl_version_info_data *sluice_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}


/// A share handle for a cookie jar: libcurl's cookie store (CURL_LOCK_DATA_COOKIE) shared by every
/// easy handle a transfer attaches it to, on the transport's thread, and by the jar's own handle on
/// the user's threads; so it is locked, with one mutex for all of its data. NULL when out of memory.
struct sluice_share {
    CURLSH *handle;
    pthread_mutex_t lock;
};

static inline void sluice_share_lock(CURL *handle, curl_lock_data data, curl_lock_access access, void *user) {
    (void)handle; (void)data; (void)access;
    pthread_mutex_lock(&((struct sluice_share *)user)->lock);
}

static inline void sluice_share_unlock(CURL *handle, curl_lock_data data, void *user) {
    (void)handle; (void)data;
    pthread_mutex_unlock(&((struct sluice_share *)user)->lock);
}

static inline struct sluice_share *sluice_cookie_share_new(void) {
    struct sluice_share *share = calloc(1, sizeof(struct sluice_share));
    if (share == NULL) {
        return NULL;
    }
    pthread_mutex_init(&share->lock, NULL);
    share->handle = curl_share_init();
    if (share->handle == NULL
        || curl_share_setopt(share->handle, CURLSHOPT_LOCKFUNC, sluice_share_lock) != CURLSHE_OK
        || curl_share_setopt(share->handle, CURLSHOPT_UNLOCKFUNC, sluice_share_unlock) != CURLSHE_OK
        || curl_share_setopt(share->handle, CURLSHOPT_USERDATA, share) != CURLSHE_OK
        || curl_share_setopt(share->handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE) != CURLSHE_OK) {
        if (share->handle != NULL) {
            curl_share_cleanup(share->handle);
        }
        pthread_mutex_destroy(&share->lock);
        free(share);
        return NULL;
    }
    return share;
}

/// Frees a share no easy handle uses any more.
static inline void sluice_cookie_share_free(struct sluice_share *share) {
    curl_share_cleanup(share->handle);
    pthread_mutex_destroy(&share->lock);
    free(share);
}

static inline CURLcode sluice_easy_setopt_share(CURL *handle, struct sluice_share *share) {
    return curl_easy_setopt(handle, CURLOPT_SHARE, share == NULL ? NULL : share->handle);
}

static inline CURLcode sluice_easy_getinfo_slist(CURL *handle, CURLINFO info, struct curl_slist **list) {
    return curl_easy_getinfo(handle, info, list);
}

#endif
