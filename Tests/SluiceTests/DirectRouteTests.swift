import Foundation
import SluiceTesting
import Synchronization
import Testing

@testable import Sluice

/// Proceeds with the request as it is: a user's interceptor that changes nothing, which puts a
/// client on the general path through the chain.
private struct PassingOn: Interceptor {
    func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<TransferEvent, SluiceError> {
        chain.proceed(request)
    }
}

/// It changes nothing, so it may take the transport's response whole, as the direct route does.
extension PassingOn: ResponsePreservingInterceptor {}

/// Changes nothing, but is not marked as preserving responses: the chain puts the response
/// together again from its events (`Exchange.Delivery.buffered`).
private struct PassingOnUnmarked: Interceptor {
    func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<TransferEvent, SluiceError> {
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

/// A client on the default chain sends its requests without the chain's objects (`DirectRun`) and
/// hands a response to them only when the chain would act on it: what the caller sees is what the
/// general path gives.
@Suite("Direct route of the default chain")
struct DirectRouteTests {
    @Test func onlyARedirectThenADefaultHeadersChainTakesTheDirectRoute() throws {
        let stub = StubTransport(reply: .response(status: 200))
        let plain = try Client(baseURL: "https://a.example/", transport: stub)
        #expect(plain.directRoute != nil)
        var noRedirects = Client.Configuration()
        noRedirects.redirectPolicy = .none
        #expect(
            try Client(baseURL: "https://a.example/", configuration: noRedirects, transport: stub).directRoute != nil)
        let exact = try Client(
            baseURL: "https://a.example/", chain: [RedirectInterceptor(), DefaultHeadersInterceptor([:])],
            transport: stub)
        #expect(exact.directRoute != nil)

        var retrying = Client.Configuration()
        retrying.retryPolicy = RetryPolicy()
        var authorized = Client.Configuration()
        authorized.authorization = .basic(user: "ada", password: "pw")
        let others = [
            try Client(baseURL: "https://a.example/", configuration: retrying, transport: stub),
            try Client(baseURL: "https://a.example/", configuration: authorized, transport: stub),
            try Client(baseURL: "https://a.example/", interceptors: [PassingOn()], transport: stub),
            plain.intercepted(by: PassingOn()),
            try Client(
                baseURL: "https://a.example/", chain: [DefaultHeadersInterceptor([:]), RedirectInterceptor()],
                transport: stub),
        ]
        for client in others { #expect(client.directRoute == nil) }
    }

    @Test func everyOutcomeMatchesTheGeneralPathAgainstTheServer() async throws {
        try await withServer { server, transport in
            let other = try await MockServer.start()
            let direct = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            // The chain's paths: the response handed over whole, and put together from events.
            let chain: (any Interceptor) throws -> Client = { first in
                try Client(
                    baseURL: server.baseURL.absoluteString,
                    chain: [first, RedirectInterceptor(), DefaultHeadersInterceptor(DefaultHeaders.all)],
                    transport: transport)
            }
            let handedOver = try chain(PassingOn())
            let buffered = try chain(PassingOnUnmarked())
            #expect(direct.directRoute != nil && handedOver.directRoute == nil && buffered.directRoute == nil)
            #expect(handedOver.preservesResponses && !buffered.preservesResponses)
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
                for (path, client) in [("handed over", handedOver), ("buffered", buffered)] {
                    let outcome = Outcome(await result(of: client.get(url)))
                    #expect(directOutcome == outcome, "\(name): direct \(directOutcome), \(path) \(outcome)")
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
            try await other.shutdown()
        }
    }

    @Test func aRedirectOnTheDirectRouteIsFollowedWithTheDefaultsOfEachHop() async throws {
        try await withServer { server, transport in
            // Unobserved: a client whose events are observed takes the general path.
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
        try await withServer { server, transport in
            let other = try await MockServer.start()
            var configuration = Client.Configuration()
            configuration.defaultHeaders["Authorization"] = "Bearer default-secret"
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            #expect(client.directRoute != nil)
            let away = server.url(for: .redirect(status: 302, to: other.url(for: .echo)))
            let response = try await client.get(away.absoluteString).value
            #expect(response.status == 200)
            #expect(server.requests(to: "/redirect").first?.headers["Authorization"] == "Bearer default-secret")
            let received = try #require(other.requests(to: "/echo").first)
            #expect(received.headers["Authorization"] == nil, "a secret default must not reach another origin")
            #expect(received.headers["User-Agent"] == DefaultHeaders.userAgent)
            try await other.shutdown()
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
            let slow = server.url(for: .delay(.seconds(5)))
            let events = Mutex<[Event<Response, SluiceError>]>([])
            let disposable = client.get(slow.absoluteString).start { event in events.withLock { $0.append(event) } }
            let deadline = ContinuousClock.now + .seconds(5)
            while server.requests(to: .delay(.seconds(5))).isEmpty && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
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
