import Foundation
import Sluice
import Synchronization

/// Step: one request's own options, completion handlers that hear cancellations, headers as a
/// list, the curl line of what the client sends, and producers bound to a lifetime or replayed.
enum OneRequestsOptions {
    static func run(_ client: Client) async throws {
        Tour.step("One request's options: a modifier on the verb; a deadline spans retries and redirects")
        do {
            _ = try await client.get("delay/2000", headers: [.accept("application/json")]) { request in
                request.options.deadline = .milliseconds(300)
                request.options.retryPolicy = .exponentialBackoff(maxAttempts: 3)
            }.value
        } catch {
            print("  \(error.code), timeout: \(error.timeout.map { "\($0)" } ?? "none")")  // timedOut, deadline
        }

        Tour.step("A completion handler hears every ending, cancellations included")
        let ended = Mutex<Result<Response, SluiceError>?>(nil)  // a captured var is not Sendable in Swift 6
        let request = client.get("delay/5000").startWithCompletion { result in ended.withLock { $0 = result } }
        try await Task.sleep(for: .milliseconds(100))
        print("  cancelled \(client.cancelAll()) request(s)")
        try await Task.sleep(for: .milliseconds(50))
        if case .failure(let error) = ended.withLock({ $0 }) { print("  the handler ran with \(error.code)") }
        request.dispose()

        Tour.step("What the client sends, as a curl command (the default headers included)")
        print("  " + client.curlDescription(for: try client.makeRequest(.get, "users", headers: [.bearer("t0k")])))

        Tour.step("replayLazily: one request, however many awaits")
        let sent = Mutex(0)
        let echo = client.get("echo").on(starting: { sent.withLock { $0 += 1 } }).replayLazily(upTo: 1)
        for _ in 1...3 { _ = try await echo.value }
        print("  three awaits, \(sent.withLock { $0 }) request sent")

        Tour.step("take(during:): a request bound to its owner ends when the owner goes")
        let (lifetime, token) = Lifetime.make()  // the token lives in the owner
        client.get("delay/5000").on(interrupted: { print("  the request was cancelled") })
            .take(during: lifetime).start()
        try await Task.sleep(for: .milliseconds(50))
        token.dispose()  // the owner goes away
        try await Task.sleep(for: .milliseconds(50))
    }
}
