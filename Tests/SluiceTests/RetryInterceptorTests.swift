import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Synchronization
import Testing

/// Collects a client's lifecycle events.
final class EventLog: Sendable {
    let events = Lock<[TaskEvent]>([])
    let disposable: (any Disposable)?

    init(_ client: Client) {
        let events = self.events
        disposable = client.events.observeValues { event in events.withLock { $0.append(event) } }
    }

    var retries: [RetryAttempt] {
        events.withLock { $0 }.compactMap { if case .retried(let retry) = $0.kind { return retry } else { return nil } }
    }

    var redirects: [RedirectHop] {
        events.withLock { $0 }.compactMap {
            if case .redirected(let hop) = $0.kind { return hop } else { return nil }
        }
    }
}

@Suite("Retry interceptor")
struct RetryInterceptorTests {
    func client(_ server: MockServer, _ transport: CurlTransport, _ policy: RetryPolicy, _ scheduler: TestScheduler)
        throws -> Client
    {
        var configuration = Client.Configuration()
        configuration.retryPolicy = policy
        configuration.scheduler = scheduler
        return try Client(baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
    }

    @Test func aFlakyEndpointIsRetriedWithExponentialDelaysInVirtualTime() async throws {
        try await withServer { server, transport in
            let scheduler = TestScheduler()
            var policy = RetryPolicy(maxAttempts: 4, baseDelay: .seconds(1))
            policy.jitter = .none
            let client = try client(server, transport, policy, scheduler)
            let log = EventLog(client)
            let url = server.url(for: .flaky(key: "exp", failures: 2))
            let result = Mutex<Response?>(nil)
            _ = client.get(url.absoluteString).startWithValues { response in result.withLock { $0 = response } }

            try await eventually("the first retry is scheduled") { scheduler.pendingCount == 1 }
            #expect(log.retries.map(\.delay) == [.seconds(1)])
            scheduler.advance(by: .milliseconds(999))
            #expect(server.requests(to: "/flaky/exp").count == 1, "nothing is sent before the delay")
            scheduler.advance(by: .milliseconds(1))
            try await eventually("the second retry is scheduled") { log.retries.count == 2 }
            #expect(log.retries.map(\.delay) == [.seconds(1), .seconds(2)])
            #expect(log.retries.map(\.attempt) == [2, 3])
            if case .status(503) = log.retries[0].reason {} else { Issue.record("the reason is the status") }
            scheduler.advance(by: .seconds(2))
            try await eventually("the response arrives") { result.withLock { $0 } != nil }
            #expect(result.withLock { $0?.status } == 200)
            #expect(server.requests(to: "/flaky/exp").count == 3)
        }
    }

    @Test func whenAttemptsRunOutTheLastResponseIsDelivered() async throws {
        try await withServer { server, transport in
            var policy = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1))
            policy.jitter = .none
            let client = try client(server, transport, policy, TestScheduler())
            var configuration = client.configuration
            configuration.scheduler = QueueScheduler()
            let real = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            let response = try await real.get(server.url(for: .flaky(key: "out", failures: 5)).absoluteString).value
            #expect(response.status == 503)
            #expect(server.requests(to: "/flaky/out").count == 2)
        }
    }

    @Test func aPostIsNotRetried() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport, RetryPolicy(baseDelay: .zero), TestScheduler())
            let log = EventLog(client)
            let response = try await client.post(server.url(for: .flaky(key: "post", failures: 1)).absoluteString)
                .value
            #expect(response.status == 503)
            #expect(server.requests(to: "/flaky/post").count == 1)
            #expect(log.retries.isEmpty)
        }
    }

    @Test(arguments: [("3", Duration.seconds(3)), ("garbage", .seconds(1)), ("999999999", .seconds(60))])
    func retryAfterFromTheServerSetsTheDelay(value: String, expected: Duration) async throws {
        try await withServer { server, transport in
            let scheduler = TestScheduler()
            var policy = RetryPolicy(maxAttempts: 2, baseDelay: .seconds(1), maxRetryAfter: .seconds(60))
            policy.jitter = .none
            let client = try client(server, transport, policy, scheduler)
            let log = EventLog(client)
            let key = "ra-\(value.count)"
            let url = server.url(for: .flaky(key: key, failures: 1, status: 429, retryAfter: value))
            let done = Mutex(false)
            _ = client.get(url.absoluteString).startWithCompleted { done.withLock { $0 = true } }
            try await eventually("the retry is scheduled") { scheduler.pendingCount == 1 }
            #expect(log.retries.map(\.delay) == [expected])
            scheduler.advance(by: expected)
            try await eventually("the retry completes") { done.withLock { $0 } }
            #expect(server.requests(to: "/flaky/\(key)").count == 2)
        }
    }

    @Test func retryAfterAsAnHTTPDateIsMeasuredFromTheSchedulersNow() async throws {
        try await withServer { server, transport in
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let scheduler = TestScheduler(startDate: start)
            var policy = RetryPolicy(maxAttempts: 2)
            policy.jitter = .none
            let client = try client(server, transport, policy, scheduler)
            let log = EventLog(client)
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            let date = formatter.string(from: start.addingTimeInterval(9))
            let url = server.url(for: .flaky(key: "date", failures: 1, retryAfter: date))
            _ = client.get(url.absoluteString).start()
            try await eventually("the retry is scheduled") { scheduler.pendingCount == 1 }
            #expect(log.retries.map(\.delay) == [.seconds(9)])
        }
    }

    @Test func aConnectionRefusedBeforeAnyResponseIsRetriedAndThenReported() async throws {
        // A port nobody listens on: every attempt fails with .cannotConnect.
        try await RefusedAddress.withBaseURL { base in
            var configuration = Client.Configuration()
            var policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1))
            policy.jitter = .none
            configuration.retryPolicy = policy
            configuration.scheduler = QueueScheduler()
            let client = try Client(
                baseURL: base.absoluteString, configuration: configuration, transport: CurlTransport())
            let log = EventLog(client)
            do throws(SluiceError) {
                _ = try await client.get("echo").value
                Issue.record("cannot connect")
            } catch {
                #expect(error.code == .cannotConnect)
            }
            #expect(log.retries.count == 2)
            if case .error(let error) = log.retries.first?.reason { #expect(error.code == .cannotConnect) }
        }
    }

    @Test func aRetryNeverDeliversTheDroppedResponsesBody() async throws {
        try await withServer { server, transport in
            server.script("/twice", .text("first, refused", status: 503), .text("second, accepted"))
            var configuration = Client.Configuration()
            configuration.retryPolicy = RetryPolicy(baseDelay: .zero)
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            var text = Data()
            for try await chunk in try client.stream("twice").values { text.append(chunk) }
            #expect(String(decoding: text, as: UTF8.self) == "second, accepted")
        }
    }
}
