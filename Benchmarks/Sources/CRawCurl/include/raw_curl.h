// The reference client of the transport benchmark: plain C on libcurl's multi interface, written
// the way a C programmer tunes it by hand. No curl type appears here, so Swift sees only this API.
#ifndef SLUICE_BENCH_RAW_CURL_H
#define SLUICE_BENCH_RAW_CURL_H

#include <stdint.h>

/// What one run of GETs did.
typedef struct {
    /// Transfers that ended with CURLE_OK and status 200.
    int64_t succeeded;
    /// Transfers that ended otherwise.
    int64_t failed;
    /// Body bytes received, summed over every transfer.
    int64_t bytes;
    /// The first failure's CURLcode, or its HTTP status if the transfer itself went well; 0 if none.
    int64_t first_error;
    /// 1 if the run gave up at its deadline before every transfer finished.
    int32_t timed_out;
    /// The first bytes of the last response body, when the job asked for them (`capture_body`).
    char body[64];
    /// How many bytes of `body` are set.
    int32_t body_length;
} raw_curl_result;

/// One run of transfers of the same request, for `raw_curl_client_run`.
typedef struct {
    /// The URL of every transfer.
    const char *url;
    /// How many transfers the run makes.
    long count;
    /// How many run at once (1 for sequential); every one is started at once when equal to `count`.
    long in_flight;
    /// libcurl's receive buffer in bytes (0 for libcurl's default).
    long buffer_size;
    /// The longest the run may take before it gives up.
    long deadline_ms;
    /// When not NULL, every transfer POSTs these `post_size` bytes as application/octet-stream.
    const char *post_data;
    /// The length of `post_data`.
    long post_size;
    /// When not NULL, every transfer sends this file as the part "file" of a multipart/form-data POST.
    const char *upload_path;
    /// When not NULL, response bodies are written to this file (created or truncated at the start of
    /// the run) instead of being dropped.
    const char *download_path;
    /// When not 0, the first bytes of each response body are kept in the result's `body`.
    int32_t capture_body;
    /// When not NULL, more request header lines for every transfer, "Name: value" each, separated
    /// by "\n" (each under 1,024 bytes): the end-to-end suite sends Sluice's default headers with it.
    const char *extra_headers;
} raw_curl_job;

/// One multi handle and its pool of easy handles, kept across runs so connections stay warm.
typedef struct raw_curl_client raw_curl_client;

/// Makes a client whose connection cache keeps `max_connects` idle connections
/// (CURLMOPT_MAXCONNECTS); NULL if libcurl could not be initialised.
raw_curl_client *raw_curl_client_create(long max_connects);

/// Frees the client: removes and cleans every easy handle, then the multi handle.
void raw_curl_client_destroy(raw_curl_client *client);

/// Runs `count` GETs of `url`, keeping `in_flight` of them running at once (1 for sequential),
/// with a receive buffer of `buffer_size` bytes (0 for libcurl's default). The body bytes are
/// counted and dropped. Gives up after `deadline_ms` milliseconds. Returns 0 when the loop ran to
/// the end (look at `result` for failures), -1 on a libcurl setup error.
int raw_curl_client_get(
    raw_curl_client *client, const char *url, long count, long in_flight, long buffer_size, long deadline_ms,
    raw_curl_result *result);

/// Runs `job`: `job->count` transfers, `job->in_flight` at a time, each easy handle re-added as soon
/// as its transfer is done. Returns 0 when the loop ran to the end (look at `result` for failures),
/// -1 on a setup error (libcurl, memory, or the download file).
int raw_curl_client_run(raw_curl_client *client, const raw_curl_job *job, raw_curl_result *result);

/// Caps the connections the client opens: `total` in all and `per_host` to one host (0 for no cap;
/// CURLMOPT_MAX_TOTAL_CONNECTIONS and CURLMOPT_MAX_HOST_CONNECTIONS). Transfers beyond the caps
/// wait in libcurl's queue.
void raw_curl_client_limit_connections(raw_curl_client *client, long total, long per_host);

/// Pins the calling thread, and the threads and processes it starts afterwards, to CPU `cpu`
/// (sched_setaffinity, which Swift cannot see without _GNU_SOURCE). Returns 0, or -1 with errno.
int raw_curl_pin_to_cpu(int cpu);

#endif
