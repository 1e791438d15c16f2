import Foundation
import SluiceTesting
import Synchronization
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// Proceeds with the request as it is: a user's interceptor that changes nothing.
private struct PassingOn: Interceptor {
    func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        chain.proceed(request)
    }
}

/// What a caller can tell of one request's outcome.
private struct Outcome: Equatable, CustomStringConvertible {
    var status: Int?
    var body: Data?
    var finalURL: String?
    var sentUserAgent: Bool?
    var error: SluiceError.Code?

    init(_ result: Result<Response, SluiceError>) {
        switch result {
        case .success(let response):
            status = response.status
            body = response.body
            finalURL = response.request.url.absoluteString
            sentUserAgent = response.request.headers["User-Agent"] != nil
        case .failure(let error):
            self.error = error.code
        }
    }

    var description: String {
        if let error { return "failed: \(error)" }
        return "\(status ?? 0) \(body?.count ?? 0) bytes from \(finalURL ?? "?")"
    }
}

/// The outcome of starting `producer` once.
private func result(of producer: SignalProducer<Response, SluiceError>) async -> Result<Response, SluiceError> {
    do throws(SluiceError) {
        return .success(try await producer.value)
    } catch {
        return .failure(error)
    }
}

/// Every request takes one path through the chain, whatever the chain holds and whoever watches:
/// a client with an interceptor of the user's, and one whose events are observed, give what the
/// plain client gives.
@Suite("One path for every request")
struct OnePathTests {
    @Test func everyOutcomeIsTheSameWithAnInterceptorOrAnObserver() async throws {
        try await withServers { server, other, transport in
            let direct = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let handedOver = try Client(
                baseURL: server.baseURL.absoluteString, interceptors: [PassingOn()], transport: transport)
            let buffered = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let watched = Mutex(0)
            let watching = buffered.events.observeValues { _ in watched.withLock { $0 += 1 } }
            defer { watching.dispose() }
            let endpoints: [(String, Endpoint)] = [
                ("a body", .bytes(3_000)),
                ("a 404", .status(404)),
                ("a 302 without Location, delivered as it is", .status(302)),
                ("a redirect", .redirect(status: 302, to: server.url(for: .bytes(10)))),
                ("a 307 to the other server", .redirect(status: 307, to: other.url(for: .echo))),
                ("a relative redirect", .relativeRedirect(status: 301, to: "/bytes/20")),
                ("three redirects", .redirectChain(count: 3)),
                ("too many redirects", .redirectChain(count: 11)),
                ("a redirect to another scheme", .redirect(status: 302, to: URL(string: "ftp://127.0.0.1/f")!)),
                ("a reset mid-body", .fault(.resetMidBody)),
                ("a malformed status line", .fault(.malformedStatusLine)),
            ]
            for (name, endpoint) in endpoints {
                let url = server.url(for: endpoint).absoluteString
                let directOutcome = Outcome(await result(of: direct.get(url)))
                for (path, client) in [("intercepted", handedOver), ("observed", buffered)] {
                    let outcome = Outcome(await result(of: client.get(url)))
                    #expect(directOutcome == outcome, "\(name): plain \(directOutcome), \(path) \(outcome)")
                }
            }
            // Sent once each way: no path sends a request twice.
            #expect(server.requests(to: .bytes(3_000)).count == 3)
            #expect(server.requests(to: "/redirect").count == 9, "three redirecting endpoints, each asked three times")
            #expect(server.requests(to: .bytes(10)).count == 3)
            // Each client counted the same requests and failures for each host.
            let counts = { (client: Client) in
                client.metrics.value.hosts.mapValues { [$0.requestCount, $0.failureCount, Int($0.bytesReceived)] }
            }
            try await eventually("the metrics count every request") {
                counts(direct).values.map { $0[0] }.reduce(0, +) == endpoints.count
            }
            try await eventually("the chain's metrics count every request too") {
                counts(buffered).values.map { $0[0] }.reduce(0, +) == endpoints.count
                    && counts(handedOver).values.map { $0[0] }.reduce(0, +) == endpoints.count
            }
            #expect(counts(direct) == counts(handedOver))
            #expect(counts(direct) == counts(buffered))
            #expect(watched.withLock { $0 } > 0, "the observed client reported its tasks' events")
        }
    }

    @Test func aRedirectIsFollowedWithTheDefaultsOfEachHop() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let response = try await client.get(
                server.url(for: .redirect(status: 302, to: server.url(for: .echo)))
                    .absoluteString
            ).value
            #expect(response.status == 200)
            #expect(response.request.url == server.url(for: .echo))
            let hops = server.requests(to: "/redirect") + server.requests(to: "/echo")
            #expect(hops.count == 2)
            for hop in hops { #expect(hop.headers["User-Agent"] == DefaultHeaders.userAgent) }
        }
    }

    @Test func aSecretDefaultHeaderStaysOnTheOriginAcrossARedirect() async throws {
        try await withServers { server, other, transport in
            var configuration = Client.Configuration()
            configuration.defaultHeaders["Authorization"] = "Bearer default-secret"
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            let away = server.url(for: .redirect(status: 302, to: other.url(for: .echo)))
            let response = try await client.get(away.absoluteString).value
            #expect(response.status == 200)
            #expect(server.requests(to: "/redirect").first?.headers["Authorization"] == "Bearer default-secret")
            let received = try #require(other.requests(to: "/echo").first)
            #expect(received.headers["Authorization"] == nil, "a secret default must not reach another origin")
            #expect(received.headers["User-Agent"] == DefaultHeaders.userAgent)
        }
    }

    @Test func aRequestThatCannotBeSentFailsAndCountsAsAFailure() async throws {
        let stub = StubTransport(reply: .response(status: 200))
        let client = try Client(baseURL: "https://a.example/", transport: stub)
        let outcome = await result(of: client.get("x", headers: ["X-Bad": "a\r\nInjected: 1"]))
        guard case .failure(let error) = outcome else {
            Issue.record("a header with CR LF must be refused, got \(outcome)")
            return
        }
        #expect(error.code == .invalidHeader)
        #expect(stub.requests.isEmpty, "nothing reached the transport")
        try await eventually("the failure is counted") {
            client.metrics.value.hosts["a.example:443"]?.failureCount == 1
        }
    }

    @Test func disposingTheFirstHopInterruptsOnceAndLeavesNothingInFlight() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let slow = server.url(for: .delay(.seconds(60)))
            let events = Mutex<[Event<Response, SluiceError>]>([])
            let disposable = client.get(slow.absoluteString).start { event in events.withLock { $0.append(event) } }
            try await eventually("the first hop reaches the server", timeout: .seconds(5)) {
                !server.requests(to: .delay(.seconds(60))).isEmpty
            }
            disposable.dispose()
            try await Task.sleep(for: .milliseconds(300))
            let seen = events.withLock { $0 }
            #expect(seen.count == 1, "one event: \(seen)")
            if case .interrupted = seen.first {} else { Issue.record("interrupted, not \(seen)") }
            #expect(client.inFlight.count == 0)
        }
    }
}
