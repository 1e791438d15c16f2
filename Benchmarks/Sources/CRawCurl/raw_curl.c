// Raw libcurl multi, as a competent C programmer writes it for throughput: one multi handle, one
// easy handle per slot configured once and re-added for every transfer (no reset, no re-parse of
// options), a write callback that only counts (or writes to the download file), libcurl's own
// multipart encoder for uploads, and a curl_multi_poll loop.
#define _GNU_SOURCE
#include "raw_curl.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/// Where a run's response bodies go when they are not simply counted and dropped.
typedef struct {
    raw_curl_result *result;
    /// The download file, or -1.
    int fd;
    /// Whether the first bytes of the bodies are kept in `result->body`.
    int capture;
    /// Set when a write to the file failed; the transfer is then aborted.
    int write_failed;
} body_sink;

/// The write callback of downloads and captured bodies: counts, then writes the bytes to the file
/// and keeps the first of them.
static size_t receive(char *data, size_t size, size_t count, void *user) {
    body_sink *sink = user;
    size_t length = size * count;
    sink->result->bytes += (int64_t)length;
    if (sink->capture) {
        size_t room = sizeof sink->result->body - 1 - (size_t)sink->result->body_length;
        size_t kept = length < room ? length : room;
        memcpy(sink->result->body + sink->result->body_length, data, kept);
        sink->result->body_length += (int32_t)kept;
    }
    for (size_t written = 0; sink->fd >= 0 && written < length;) {
        ssize_t n = write(sink->fd, data + written, length - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            sink->write_failed = 1;
            return 0;  // anything but `length` makes libcurl fail the transfer with CURLE_WRITE_ERROR
        }
        written += (size_t)n;
    }
    return length;
}

/// Appends each "\n"-separated line of `lines` to `*list`, skipping empty ones; -1 if a line is
/// 1,024 bytes or longer or libcurl runs out of memory.
static int append_header_lines(struct curl_slist **list, const char *lines) {
    char line[1024];
    const char *start = lines;
    while (*start != '\0') {
        const char *end = strchr(start, '\n');
        size_t length = end != NULL ? (size_t)(end - start) : strlen(start);
        if (length >= sizeof line) return -1;
        if (length > 0) {
            memcpy(line, start, length);
            line[length] = '\0';
            struct curl_slist *appended = curl_slist_append(*list, line);
            if (appended == NULL) return -1;
            *list = appended;
        }
        start += length + (end != NULL ? 1 : 0);
    }
    return 0;
}

/// Sets the options of one run on `easy`; the multipart form, if the job has one, goes to `mime`.
static int configure(
    CURL *easy, const raw_curl_job *job, raw_curl_result *result, body_sink *sink, struct curl_slist *headers,
    curl_mime **mime) {
    if (curl_easy_setopt(easy, CURLOPT_URL, job->url) != CURLE_OK) return -1;
    if (sink != NULL) {
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, receive);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, sink);
    } else {
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, count_and_drop);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, &result->bytes);
    }
    long buffer_size = job->buffer_size > 0 ? job->buffer_size : (long)CURL_MAX_WRITE_SIZE;
    curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, buffer_size);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    *mime = NULL;
    if (job->post_data != NULL) {
        // The size first: without it libcurl would take strlen of the data.
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, job->post_size);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, job->post_data);
    } else if (job->upload_path != NULL) {
        // libcurl's own multipart encoder, which reads the file as it sends it.
        *mime = curl_mime_init(easy);
        curl_mimepart *part = *mime != NULL ? curl_mime_addpart(*mime) : NULL;
        if (part == NULL || curl_mime_name(part, "file") != CURLE_OK ||
            curl_mime_filedata(part, job->upload_path) != CURLE_OK ||
            curl_easy_setopt(easy, CURLOPT_MIMEPOST, *mime) != CURLE_OK)
            return -1;
    } else {
        curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
    }
    return 0;
}

int raw_curl_client_run(raw_curl_client *client, const raw_curl_job *job, raw_curl_result *result) {
    *result = (raw_curl_result){0};
    long count = job->count;
    long in_flight = job->in_flight;
    if (count <= 0) return 0;
    if (in_flight > count) in_flight = count;
    if (in_flight < 1 || ensure_handles(client, in_flight) != 0) return -1;

    body_sink sink = {.result = result, .fd = -1, .capture = job->capture_body != 0};
    if (job->download_path != NULL) {
        sink.fd = open(job->download_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (sink.fd < 0) return -1;
    }
    // Plain counting keeps the cheapest callback; files and captures need the sink.
    body_sink *used_sink = sink.fd >= 0 || sink.capture ? &sink : NULL;
    // Bodies go without "Expect: 100-continue", as Sluice sends them: it would cost a round trip.
    struct curl_slist *headers = NULL;
    if (job->post_data != NULL) headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
    if (job->post_data != NULL || job->upload_path != NULL) headers = curl_slist_append(headers, "Expect:");
    curl_mime **mimes = calloc((size_t)in_flight, sizeof *mimes);
    int rc = mimes == NULL ? -1 : 0;
    if (rc == 0 && job->extra_headers != NULL) rc = append_header_lines(&headers, job->extra_headers);

    // Per-run options, set once per handle (not once per transfer).
    for (long i = 0; rc == 0 && i < in_flight; i++) {
        rc = configure(client->handles[i], job, result, used_sink, headers, &mimes[i]);
    }

    long started = 0;
    long finished = 0;
    for (; rc == 0 && started < in_flight; started++) {
        if (curl_multi_add_handle(client->multi, client->handles[started]) != CURLM_OK) rc = -1;
    }
    const int64_t deadline = monotonic_ms() + job->deadline_ms;
    while (rc == 0 && finished < count) {
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
    // Leave no handle in the multi handle (a timed-out run may still have some running), and no
    // handle pointing at this run's headers or forms.
    for (long i = 0; i < in_flight; i++) {
        CURL *easy = client->handles[i];
        curl_multi_remove_handle(client->multi, easy);
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, NULL);
        if (mimes != NULL && mimes[i] != NULL) {
            curl_easy_setopt(easy, CURLOPT_MIMEPOST, NULL);
            curl_mime_free(mimes[i]);
        }
    }
    free(mimes);
    curl_slist_free_all(headers);
    if (sink.fd >= 0 && close(sink.fd) != 0) rc = -1;
    if (sink.write_failed) rc = -1;
    return rc;
}

int raw_curl_client_get(
    raw_curl_client *client, const char *url, long count, long in_flight, long buffer_size, long deadline_ms,
    raw_curl_result *result) {
    raw_curl_job job = {
        .url = url, .count = count, .in_flight = in_flight, .buffer_size = buffer_size, .deadline_ms = deadline_ms};
    return raw_curl_client_run(client, &job, result);
}

void raw_curl_client_limit_connections(raw_curl_client *client, long total, long per_host) {
    curl_multi_setopt(client->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, total);
    curl_multi_setopt(client->multi, CURLMOPT_MAX_HOST_CONNECTIONS, per_host);
}

int raw_curl_pin_to_cpu(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}
