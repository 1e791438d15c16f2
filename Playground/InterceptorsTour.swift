import Foundation
import Sluice

/// Step: interceptors. A token refreshed once for many requests, a flaky endpoint retried with
/// backoff, and redirects followed hop by hop, each visible as a lifecycle event.
enum InterceptorsTour {
    /// Hands out tokens; the first one has expired.
    actor Tokens {
        var current = "expired"
        var refreshes = 0

        func refresh() async throws -> String {
            refreshes += 1
            try await Task.sleep(for: .milliseconds(50))
            current = "fresh-\(refreshes)"
            return current
        }
    }

    static func run(baseURL: String) async throws {
        Tour.step("Bearer auth: five requests with an expired token cause exactly one refresh, then replay")
        let tokens = Tokens()
        let authed = try Client(
            baseURL: baseURL,
            interceptors: [.bearer(token: { await tokens.current }, refresh: { try await tokens.refresh() })])
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<5 { group.addTask { try await authed.get("bearer/fresh-1").value.status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        print("  statuses \(statuses), refreshes: \(await tokens.refreshes)")

        Tour.step("Retry: a flaky endpoint fails twice with 503, and is retried with exponential backoff")
        var configuration = Client.Configuration()
        configuration.retryPolicy = .exponentialBackoff(maxAttempts: 4, base: .milliseconds(100), cap: .seconds(1))
        let retrying = try Client(baseURL: baseURL, configuration: configuration)
        let events = retrying.events.observeValues { event in
            if case .retried(let retry) = event.kind {
                print(
                    String(
                        format: "  attempt %d after %@, waiting %.0f ms", retry.attempt, "\(retry.reason)",
                        retry.delay.timeInterval * 1000))
            }
        }
        let key = "tour-\(UUID().uuidString.prefix(8))"
        let response = try await retrying.get("flaky/\(key)", parameters: ["failures": 2]).validate().value
        print("  finally \(response.status)")
        events.dispose()

        Tour.step("Redirects are followed by an interceptor: each hop is an event, secrets stay on their origin")
        let client = try Client(baseURL: baseURL)
        let hops = client.events.observeValues { event in
            if case .redirected(let hop) = event.kind { print("  \(hop.status) → \(hop.to.path)") }
        }
        let final = try await client.get("redirect-chain/3").value
        print("  arrived at \(final.request.url.path) with \(final.status)")
        hops.dispose()
        do {
            _ = try await client.get("redirect", parameters: ["status": 302, "to": "file:///etc/passwd"]).value
        } catch {
            print("  \(error.code): \(error.message)")
        }
    }
}
