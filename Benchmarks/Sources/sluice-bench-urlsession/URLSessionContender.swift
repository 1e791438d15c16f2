import BenchChild
import BenchChildAsync
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// URLSession from FoundationNetworking (itself on libcurl on Linux), as an application uses it:
/// one session of the default configuration without a response cache, and its async methods.
/// Requests in flight are tasks of a task group; the session's own per-host connection limit
/// (`httpMaximumConnectionsPerHost`, 6 by default) is left as it is, as a user would.
final class URLSessionContender: E2EContender {
    private let session: URLSession
    private let context: E2EContext

    init(context: E2EContext) {
        let configuration = URLSessionConfiguration.default
        // Without this every response would also be written to the shared cache.
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
        self.context = context
    }

    func run(_ workload: E2EWorkload, count: Int) -> E2EOutcome {
        let session = self.session
        let context = self.context
        let small = URL(string: context.url(NginxRoutes.smallPath))!
        switch workload {
        case .sequential:
            return blockingRun { await inFlightTasks(count: count, workers: 1) { await Self.get(session, small) } }
        case .parallel, .burst:
            let workers = workload == .burst ? count : context.inFlight
            return blockingRun {
                await inFlightTasks(count: count, workers: workers) { await Self.get(session, small) }
            }
        case .post:
            var request = URLRequest(url: URL(string: context.url(NginxRoutes.postPath))!)
            request.httpMethod = "POST"
            request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
            let post = request
            let payload = Data(E2EContext.postPayload)
            return blockingRun {
                await inFlightTasks(count: count, workers: context.inFlight) {
                    await Self.failure {
                        let (data, response) = try await session.upload(for: post, from: payload)
                        return Self.check(response, data, expected: "ok")
                    }
                }
            }
        case .download:
            let destination = context.downloadDestination(.urlsession)
            let big = URL(string: context.url(NginxRoutes.bigPath))!
            return blockingRun {
                let failure = await Self.failure {
                    // The file is URLSession's temporary one; an application moves it where it belongs.
                    let (file, response) = try await session.download(from: big)
                    guard (response as? HTTPURLResponse)?.statusCode == 200 else { return "status not 200" }
                    try? FileManager.default.removeItem(atPath: destination)
                    try FileManager.default.moveItem(at: file, to: URL(fileURLWithPath: destination))
                    return nil
                }
                var outcome = E2EOutcome(succeeded: failure == nil ? 1 : 0, failed: failure == nil ? 0 : 1)
                outcome.firstFailure = failure
                checkFileSize(destination: destination, expected: context.bulkBytes, &outcome)
                return outcome
            }
        case .decode, .upload:
            return E2EOutcome(failed: count, firstFailure: "URLSession does not run the \(workload.key) workload")
        }
    }

    private static func get(_ session: URLSession, _ url: URL) async -> String? {
        await failure {
            let (data, response) = try await session.data(from: url)
            return check(response, data, expected: NginxRoutes.smallPayload)
        }
    }

    /// nil when the response is a 200 with the expected body, what is wrong otherwise.
    private static func check(_ response: URLResponse, _ data: Data, expected: String) -> String? {
        guard let status = (response as? HTTPURLResponse)?.statusCode, status == 200 else { return "status not 200" }
        return data.elementsEqual(expected.utf8) ? nil : "a body of \(data.count) bytes"
    }

    /// What `operation` returns, or its error as text.
    private static func failure(_ operation: () async throws -> String?) async -> String? {
        do {
            return try await operation()
        } catch {
            return "\(error)"
        }
    }
}
