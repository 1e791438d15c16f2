import Foundation
import Sluice
import SluiceTesting
import Synchronization
import Testing

/// Options for one request on the verbs (`modify`), a deadline across retries and redirects, one
/// retry policy per request wherever retries are configured, and a client-wide parameter encoding.
@Suite("Per-request options")
struct PerRequestOptionsTests {
    private func client(
        _ server: MockServer, _ transport: CurlTransport, interceptors: [any Interceptor] = [],
        _ configure: (inout Client.Configuration) -> Void = { _ in }
    ) throws -> Client {
        var configuration = Client.Configuration()
        configure(&configuration)
        return try Client(
            baseURL: server.baseURL.absoluteString, configuration: configuration, interceptors: interceptors,
            transport: transport)
    }

    private static func noJitter(_ attempts: Int, _ delay: Duration) -> RetryPolicy {
        RetryPolicy(maxAttempts: attempts, baseDelay: delay, jitter: .none)
    }

    // MARK: modify

    @Test func aModifierGivesOneRequestItsOwnTimeoutAndHeaders() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            let slow = server.url(for: .delay(.seconds(3))).absoluteString
            let error = await expectFailure(.timedOut) {
                try await client.get(slow) { request in
                    request.options.timeout = .milliseconds(300)
                }.value
            }
            #expect(error?.timeout == .total)
            // The next request has the client's options again.
            let response = try await client.get("status/200", headers: ["X-A": "1"]) { request in
                request.headers["X-B"] = "2"
            }.value
            #expect(response.status == 200)
            #expect(response.request.options.timeout == nil)
            let sent = try #require(server.requests(to: "/status/200").last)
            #expect(sent.headers["X-A"] == "1")
            #expect(sent.headers["X-B"] == "2")
        }
    }

    @Test func aModifierThatThrowsFailsTheRequestAndSendsNothing() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            let error = await expectFailure(.invalidOption) {
                try await client.post("status/201") { (_: inout Request) throws(SluiceError) in
                    throw SluiceError(.invalidOption, "no")
                }.value
            }
            #expect(error?.message == "no")
            #expect(server.requests(to: "/status/201").isEmpty)
        }
    }

    @Test func downloadsAndTasksTakeAModifierToo() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("modified-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            let download = try client.download("bytes/100", to: file) { $0.headers["X-Download"] = "1" }
            _ = try await download.response.value
            #expect(server.requests(to: "/bytes/100").last?.headers["X-Download"] == "1")
            #expect(try Data(contentsOf: file).count == 100)
            let task = try client.task(.get, "status/200") { $0.headers["X-Task"] = "1" }
            _ = try await task.response.value
            #expect(server.requests(to: "/status/200").last?.headers["X-Task"] == "1")
        }
    }

    // MARK: A deadline across retries and redirects

    @Test func aDeadlineSpansEveryRetryInVirtualTime() async throws {
        try await withServer { server, transport in
            let scheduler = TestScheduler()
            let client = try client(server, transport) {
                $0.scheduler = scheduler
                $0.retryPolicy = Self.noJitter(10, .seconds(1))
            }
            let url = server.url(for: .flaky(key: "deadline", failures: 9)).absoluteString
            let result = Mutex<Result<Response, SluiceError>?>(nil)
            _ = client.get(url) { $0.options.deadline = .milliseconds(2500) }.startWithCompletion { outcome in
                result.withLock { $0 = outcome }
            }
            try await eventually("the first retry waits") { scheduler.pendingCount == 2 }  // deadline and backoff
            scheduler.advance(by: .seconds(1))  // attempt 2, then a backoff of 2 s
            try await eventually("the second retry waits") { server.requests(to: "/flaky/deadline").count == 2 }
            try await eventually("the second backoff is scheduled") { scheduler.pendingCount == 2 }
            scheduler.advance(by: .milliseconds(1500))  // t = 2.5 s: the deadline, before attempt 3 at 3 s
            try await eventually("the request fails") { result.withLock { $0 } != nil }
            guard case .failure(let error) = try #require(result.withLock { $0 }) else {
                Issue.record("the deadline fails the request")
                return
            }
            #expect(error.code == .timedOut)
            #expect(error.timeout == .deadline)
            scheduler.advance(by: .seconds(10))
            #expect(server.requests(to: "/flaky/deadline").count == 2, "no attempt after the deadline")
        }
    }

    @Test func aDeadlineCutsATransferInFlight() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            let slow = server.url(for: .delay(.seconds(5))).absoluteString
            let started = ContinuousClock.now
            let error = await expectFailure(.timedOut) {
                try await client.get(slow) { $0.options.deadline = .milliseconds(300) }.value
            }
            #expect(error?.timeout == .deadline)
            #expect(ContinuousClock.now - started < .seconds(4))
        }
    }

    @Test func aRequestProducersTimeoutFailsWithItsOwnKind() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            let slow = server.url(for: .delay(.seconds(5))).absoluteString
            let error = await expectFailure(.timedOut) {
                try await client.get(slow).timeout(after: .milliseconds(200)).value
            }
            #expect(error?.timeout == .deadline)
            #expect(error?.message.contains("deadline") == true)
        }
    }

    // MARK: One retry policy per request

    @Test func aRequestCanAskForRetriesOnAClientWithout() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            let url = server.url(for: .flaky(key: "own", failures: 2)).absoluteString
            let response = try await client.get(url) {
                $0.options.retryPolicy = Self.noJitter(3, .milliseconds(1))
            }.value
            #expect(response.status == 200)
            #expect(server.requests(to: "/flaky/own").count == 3)
        }
    }

    @Test func aRetryInterceptorAndTheConfigurationsPolicyDoNotMultiply() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport, interceptors: [.retry(Self.noJitter(2, .milliseconds(1)))]) {
                $0.retryPolicy = Self.noJitter(3, .milliseconds(1))
            }
            let url = server.url(for: .flaky(key: "both", failures: 10)).absoluteString
            let response = try await client.get(url).value
            #expect(response.status == 503)
            // The interceptor's policy applies (it comes first); the built-in stage lets its
            // attempts pass: 2 requests, not 2 × 3.
            #expect(server.requests(to: "/flaky/both").count == 2)
        }
    }

    @Test func aRequestsOwnPolicyWinsOverEveryOther() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport, interceptors: [.retry(Self.noJitter(2, .milliseconds(1)))]) {
                $0.retryPolicy = Self.noJitter(3, .milliseconds(1))
            }
            let never = server.url(for: .flaky(key: "never", failures: 10)).absoluteString
            #expect(try await client.get(never) { $0.options.retryPolicy = .never }.value.status == 503)
            #expect(server.requests(to: "/flaky/never").count == 1)
            let four = server.url(for: .flaky(key: "four", failures: 10)).absoluteString
            #expect(
                try await client.get(four) { $0.options.retryPolicy = Self.noJitter(4, .milliseconds(1)) }.value
                    .status == 503)
            #expect(server.requests(to: "/flaky/four").count == 4)
        }
    }

    // MARK: Parameter encoding for the whole client

    @Test func theClientsParameterEncodingAppliesToEveryVerb() throws {
        var configuration = Client.Configuration()
        configuration.parameterEncoding = URLEncoding(arrayEncoding: .noBrackets, boolEncoding: .literal)
        let client = try Client(baseURL: "https://api.example.com/", configuration: configuration)
        let parameters: Parameters = ["tag": ["a", "b"], "draft": true]
        let get = try client.makeRequest(.get, "items", parameters: parameters)
        #expect(get.url.query == "draft=true&tag=a&tag=b")
        let post = try client.makeRequest(.post, "items", parameters: parameters)
        guard case .data(let body) = post.body else {
            Issue.record("a form body")
            return
        }
        #expect(body == Data("draft=true&tag=a&tag=b".utf8))
        // A call's own encoding wins.
        let own = try client.makeRequest(.get, "items", parameters: parameters, encoding: URLEncoding.default)
        #expect(own.url.query == "draft=1&tag%5B%5D=a&tag%5B%5D=b")
    }

    @Test func queryStringMethodsReadsAndWritesTheEncodingsMethods() throws {
        var configuration = Client.Configuration()
        configuration.parameterEncoding = URLEncoding(boolEncoding: .literal)
        configuration.queryStringMethods = [.get, .post]
        let client = try Client(baseURL: "https://api.example.com/", configuration: configuration)
        let post = try client.makeRequest(.post, "items", parameters: ["draft": true])
        #expect(post.url.query == "draft=true", "POST parameters go in the query, the encoding's Booleans kept")
        #expect(configuration.queryStringMethods == [.get, .post])
    }
}
