// Raw libcurl multi, as a competent C programmer writes it for throughput: one multi handle, one
// easy handle per slot configured once and re-added for every transfer (no reset, no re-parse of
// options), a write callback that only counts, and a curl_multi_poll loop.
#define _GNU_SOURCE
#include "raw_curl.h"

#include <curl/curl.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

struct raw_curl_client {
    CURLM *multi;
    CURL **handles;
    long handle_count;
};

/// The write callback: counts the bytes into the run's counter and drops them.
static size_t count_and_drop(char *data, size_t size, size_t count, void *user) {
    (void)data;
    *(int64_t *)user += (int64_t)(size * count);
    return size * count;
}

static int64_t monotonic_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

raw_curl_client *raw_curl_client_create(long max_connects) {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return NULL;
    raw_curl_client *client = calloc(1, sizeof *client);
    if (client == NULL) return NULL;
    client->multi = curl_multi_init();
    if (client->multi == NULL) {
        free(client);
        return NULL;
    }
    curl_multi_setopt(client->multi, CURLMOPT_MAXCONNECTS, max_connects);
    return client;
}

void raw_curl_client_destroy(raw_curl_client *client) {
    if (client == NULL) return;
    // libcurl's order: easy handles are out of the multi handle (runs remove them), then cleaned,
    // then the multi handle.
    for (long i = 0; i < client->handle_count; i++) curl_easy_cleanup(client->handles[i]);
    free(client->handles);
    curl_multi_cleanup(client->multi);
    free(client);
}

/// Grows the pool to `wanted` easy handles; the options that never change are set once here.
static int ensure_handles(raw_curl_client *client, long wanted) {
    if (client->handle_count >= wanted) return 0;
    CURL **grown = realloc(client->handles, (size_t)wanted * sizeof *grown);
    if (grown == NULL) return -1;
    client->handles = grown;
    while (client->handle_count < wanted) {
        CURL *easy = curl_easy_init();
        if (easy == NULL) return -1;
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, count_and_drop);
        client->handles[client->handle_count++] = easy;
    }
    return 0;
}

int raw_curl_client_get(
    raw_curl_client *client, const char *url, long count, long in_flight, long buffer_size, long deadline_ms,
    raw_curl_result *result) {
    *result = (raw_curl_result){0};
    if (count <= 0) return 0;
    if (in_flight > count) in_flight = count;
    if (in_flight < 1 || ensure_handles(client, in_flight) != 0) return -1;

    // Per-run options, set once per handle (not once per transfer).
    for (long i = 0; i < in_flight; i++) {
        CURL *easy = client->handles[i];
        if (curl_easy_setopt(easy, CURLOPT_URL, url) != CURLE_OK) return -1;
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, &result->bytes);
        curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, buffer_size > 0 ? buffer_size : (long)CURL_MAX_WRITE_SIZE);
    }

    long started = 0;
    long finished = 0;
    for (; started < in_flight; started++) {
        if (curl_multi_add_handle(client->multi, client->handles[started]) != CURLM_OK) return -1;
    }
    const int64_t deadline = monotonic_ms() + deadline_ms;
    int rc = 0;
    while (finished < count) {
        int running = 0;
        if (curl_multi_perform(client->multi, &running) != CURLM_OK) {
            rc = -1;
            break;
        }
        CURLMsg *message;
        int queued = 0;
        while ((message = curl_multi_info_read(client->multi, &queued)) != NULL) {
            if (message->msg != CURLMSG_DONE) continue;
            // Read everything from the message before removing its handle, which invalidates it.
            CURL *easy = message->easy_handle;
            CURLcode code = message->data.result;
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            if (code == CURLE_OK && status == 200) {
                result->succeeded++;
            } else {
                if (result->first_error == 0) result->first_error = code != CURLE_OK ? (int64_t)code : status;
                result->failed++;
            }
            finished++;
            curl_multi_remove_handle(client->multi, easy);
            if (started < count) {
                // The same handle, options untouched: libcurl reuses its connection.
                curl_multi_add_handle(client->multi, easy);
                started++;
            }
        }
        if (finished >= count) break;
        if (monotonic_ms() > deadline) {
            result->timed_out = 1;
            break;
        }
        if (curl_multi_poll(client->multi, NULL, 0, 1000, NULL) != CURLM_OK) {
            rc = -1;
            break;
        }
    }
    // Leave no handle in the multi handle (a timed-out run may still have some running).
    for (long i = 0; i < in_flight; i++) curl_multi_remove_handle(client->multi, client->handles[i]);
    return rc;
}

int raw_curl_pin_to_cpu(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}
