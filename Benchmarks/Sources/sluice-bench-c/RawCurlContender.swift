import BenchChild
import CRawCurl

/// The reference: raw libcurl multi in C (`CRawCurl`), the limit of any client on libcurl.
///
/// It caps its connections as `CurlTransport`'s default configuration does (256 in all, 64 to one
/// host; `SluiceDefaults`), so the burst of requests started at once queues in libcurl the same way
/// for both. Given header lines (`E2EContext.requestHeaders`), it sends them with every request.
final class RawCurlContender: E2EContender {
    private let context: E2EContext
    private let client: OpaquePointer
    private let jsonBytes: Int

    init(context: E2EContext) throws {
        guard let client = raw_curl_client_create(SluiceDefaults.connectionCacheSize) else {
            throw BenchmarkFailure("the C client could not initialise libcurl")
        }
        raw_curl_client_limit_connections(
            client, SluiceDefaults.maximumConnections, SluiceDefaults.maximumConnectionsPerHost)
        self.client = client
        self.context = context
        jsonBytes = fileSize(context.file(NginxRoutes.jsonPath))
    }

    deinit { raw_curl_client_destroy(client) }

    func run(_ workload: E2EWorkload, count: Int) -> E2EOutcome {
        let deadline = (E2EContext.deadlineSeconds - 10) * 1000
        switch workload {
        case .sequential:
            return gets(
                NginxRoutes.smallPath, count: count, inFlight: 1, bodyBytes: NginxRoutes.smallPayload.utf8.count)
        case .decode:
            return gets(NginxRoutes.jsonPath, count: count, inFlight: 1, bodyBytes: jsonBytes)
        case .parallel:
            return gets(
                NginxRoutes.smallPath, count: count, inFlight: context.inFlight,
                bodyBytes: NginxRoutes.smallPayload.utf8.count)
        case .burst:
            return gets(
                NginxRoutes.smallPath, count: count, inFlight: count, bodyBytes: NginxRoutes.smallPayload.utf8.count)
        case .post:
            let url = context.url(NginxRoutes.postPath)
            return E2EContext.postPayload.withUnsafeBytes { payload in
                url.withCString { url in
                    var job = raw_curl_job()
                    job.url = url
                    job.count = count
                    job.in_flight = context.inFlight
                    job.deadline_ms = deadline
                    job.post_data = payload.baseAddress!.assumingMemoryBound(to: CChar.self)
                    job.post_size = payload.count
                    // nginx answers "ok" to each.
                    return perform(job, expectedBytes: 2 * count)
                }
            }
        case .download:
            let destination = context.downloadDestination(.c)
            return context.url(NginxRoutes.bigPath).withCString { url in
                destination.withCString { destination in
                    var job = raw_curl_job()
                    job.url = url
                    job.count = 1
                    job.in_flight = 1
                    job.deadline_ms = deadline
                    // The receive buffer Sluice uses for downloads to a file.
                    job.buffer_size = SluiceDefaults.downloadBufferSize
                    job.download_path = destination
                    var outcome = perform(job, expectedBytes: context.bulkBytes)
                    checkFileSize(destination: context.downloadDestination(.c), expected: context.bulkBytes, &outcome)
                    return outcome
                }
            }
        case .upload:
            return context.url(NginxRoutes.uploadPath).withCString { url in
                context.uploadSource.withCString { source in
                    var job = raw_curl_job()
                    job.url = url
                    job.count = 1
                    job.in_flight = 1
                    job.deadline_ms = deadline
                    job.upload_path = source
                    job.capture_body = 1
                    var result = raw_curl_result()
                    let rc = raw_curl_client_run(client, &job, &result)
                    var outcome = outcome(of: result, rc: rc, expectedBytes: nil)
                    let answer = withUnsafeBytes(of: result.body) { bytes in
                        String(decoding: bytes.prefix(Int(result.body_length)), as: UTF8.self)
                    }
                    checkUploadAnswer(answer, bodyBytes: context.bulkBytes, &outcome)
                    return outcome
                }
            }
        }
    }

    private func gets(_ path: String, count: Int, inFlight: Int, bodyBytes: Int) -> E2EOutcome {
        context.url(path).withCString { url in
            var job = raw_curl_job()
            job.url = url
            job.count = count
            job.in_flight = inFlight
            job.deadline_ms = (E2EContext.deadlineSeconds - 10) * 1000
            return perform(job, expectedBytes: bodyBytes * count)
        }
    }

    /// Runs `job` with the context's extra header lines, if any.
    private func perform(_ job: raw_curl_job, expectedBytes: Int) -> E2EOutcome {
        var job = job
        var result = raw_curl_result()
        let rc: Int32
        if context.requestHeaders.isEmpty {
            rc = raw_curl_client_run(client, &job, &result)
        } else {
            rc = context.requestHeaders.joined(separator: "\n").withCString { lines in
                job.extra_headers = lines
                return raw_curl_client_run(client, &job, &result)
            }
        }
        return outcome(of: result, rc: rc, expectedBytes: expectedBytes)
    }

    /// The outcome of a C run; when the body bytes are not all there, every success is in doubt.
    private func outcome(of result: raw_curl_result, rc: Int32, expectedBytes: Int?) -> E2EOutcome {
        var outcome = E2EOutcome(succeeded: Int(result.succeeded), failed: Int(result.failed))
        if result.first_error != 0 { outcome.firstFailure = "CURLcode or status \(result.first_error)" }
        if result.timed_out != 0 { outcome.firstFailure = "the run passed its deadline" }
        if rc != 0 { outcome.firstFailure = "libcurl setup or the download file failed" }
        if let expectedBytes, Int(result.bytes) != expectedBytes {
            outcome.failed += outcome.succeeded
            outcome.succeeded = 0
            outcome.firstFailure = "\(result.bytes) body bytes instead of \(expectedBytes)"
        }
        return outcome
    }
}
