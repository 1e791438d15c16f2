import AsyncHTTPClient
import BenchChild
import BenchChildAsync
import NIOCore
import NIOFileSystem

/// AsyncHTTPClient on SwiftNIO, as an application uses it: `HTTPClient.shared` (its documented
/// default, with its default connection pool) and the async `execute`, bodies collected with
/// `collect(upTo:)`. Requests in flight are tasks of a task group; the download goes through the
/// library's `FileDownloadDelegate`; the upload streams the file with NIOFileSystem, the file
/// system API SwiftNIO recommends, framed as a multipart form by hand (the library has no builder).
final class AsyncHTTPClientContender: E2EContender {
    private let context: E2EContext
    /// The longest one request may take.
    private static let timeout = TimeAmount.seconds(Int64(E2EContext.deadlineSeconds))

    init(context: E2EContext) {
        self.context = context
    }

    func run(_ workload: E2EWorkload, count: Int) -> E2EOutcome {
        let context = self.context
        let small = context.url(NginxRoutes.smallPath)
        switch workload {
        case .sequential:
            return blockingRun { await inFlightTasks(count: count, workers: 1) { await Self.get(small) } }
        case .parallel, .burst:
            let workers = workload == .burst ? count : context.inFlight
            return blockingRun { await inFlightTasks(count: count, workers: workers) { await Self.get(small) } }
        case .post:
            // Made once: a ByteBuffer body is sent without a copy, as Sluice's Data and C's pointer are.
            let payload = ByteBuffer(bytes: E2EContext.postPayload)
            let url = context.url(NginxRoutes.postPath)
            return blockingRun {
                await inFlightTasks(count: count, workers: context.inFlight) {
                    var request = HTTPClientRequest(url: url)
                    request.method = .POST
                    request.headers.add(name: "Content-Type", value: "application/octet-stream")
                    request.body = .bytes(payload)
                    return await Self.exchange(request, expected: "ok")
                }
            }
        case .download:
            return blockingRun { await Self.download(context) }
        case .upload:
            return blockingRun { await Self.upload(context) }
        case .decode:
            return E2EOutcome(failed: count, firstFailure: "AsyncHTTPClient does not run the decode workload")
        }
    }

    private static func get(_ url: String) async -> String? {
        await exchange(HTTPClientRequest(url: url), expected: NginxRoutes.smallPayload)
    }

    /// Sends `request`; nil when the answer is a 200 whose body is `expected`, what is wrong otherwise.
    private static func exchange(_ request: HTTPClientRequest, expected: String) async -> String? {
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok else { return "status \(response.status.code)" }
            return body.readableBytesView.elementsEqual(expected.utf8) ? nil : "a body of \(body.readableBytes) bytes"
        } catch {
            return "\(error)"
        }
    }

    private static func download(_ context: E2EContext) async -> E2EOutcome {
        let destination = context.downloadDestination(.ahc)
        var outcome = E2EOutcome()
        do {
            let request = try HTTPClient.Request(url: context.url(NginxRoutes.bigPath))
            let delegate = try FileDownloadDelegate(path: destination)
            let progress = try await HTTPClient.shared.execute(request: request, delegate: delegate).get()
            if progress.head.status == .ok {
                outcome.succeeded = 1
            } else {
                outcome.failed = 1
                outcome.firstFailure = "status \(progress.head.status.code)"
            }
        } catch {
            outcome.failed = 1
            outcome.firstFailure = "\(error)"
        }
        checkFileSize(destination: destination, expected: context.bulkBytes, &outcome)
        return outcome
    }

    private static func upload(_ context: E2EContext) async -> E2EOutcome {
        let boundary = "e2e-boundary-\(UInt64.random(in: 0...UInt64.max))"
        let head = ByteBuffer(
            string: "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n")
        let tail = ByteBuffer(string: "\r\n--\(boundary)--\r\n")
        var outcome = E2EOutcome()
        var answer = ""
        do {
            try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(context.uploadSource)) { file in
                let size = Int(try await file.info().size)
                var request = HTTPClientRequest(url: context.url(NginxRoutes.uploadPath))
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
                let parts = FramedChunks(head: head, chunks: file.readChunks(in: 0..<Int64(size)), tail: tail)
                request.body = .stream(parts, length: .known(Int64(head.readableBytes + size + tail.readableBytes)))
                let response = try await HTTPClient.shared.execute(request, timeout: timeout)
                let body = try await response.body.collect(upTo: 1 << 10)
                guard response.status == .ok else { throw BenchmarkFailure("status \(response.status.code)") }
                answer = String(buffer: body)
            }
            outcome.succeeded = 1
        } catch {
            outcome.failed = 1
            outcome.firstFailure = "\(error)"
        }
        checkUploadAnswer(answer, bodyBytes: context.bulkBytes, &outcome)
        return outcome
    }
}
