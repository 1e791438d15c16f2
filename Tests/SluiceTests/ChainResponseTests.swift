import Foundation
import SluiceTesting
import Synchronization
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// Uppercases every body chunk that passes: a user's interceptor that changes responses.
struct ShoutingInterceptor: Interceptor {
    func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        chain.proceed(request).flatMap(.concat) { $0.collected() }.map { response in
            response.replacingBody(Data(String(decoding: response.body, as: UTF8.self).uppercased().utf8))
        }
    }
}

/// The response a client's caller receives: the transport's, as the chain passed it on, or changed
/// by an interceptor of the user's.
@Suite("Responses through the chain")
struct ChainResponseTests {
    @Test func aUsersInterceptorStillChangesTheBodyOfACollectedResponse() async throws {
        let stub = StubTransport(reply: .response(status: 200, body: Data("quiet".utf8), chunkSize: 2))
        let plain = try Client(baseURL: "https://a.example/", transport: stub)
        #expect(try await plain.get("x").data().value == Data("quiet".utf8))
        let shouting = try Client(baseURL: "https://a.example/", interceptors: [ShoutingInterceptor()], transport: stub)
        #expect(try await shouting.get("x").data().value == Data("QUIET".utf8))
    }

    @Test func theResponseDeliveredIsTheLastHopsWithItsRequest() async throws {
        let stub = StubTransport { request in
            request.url.path == "/start"
                ? .response(status: 302, headers: ["Location": "/next"], body: Data("moved".utf8))
                : .response(status: 200, headers: ["X-Hop": "last"], body: Data("arrived".utf8))
        }
        let client = try Client(baseURL: "https://a.example/", transport: stub)
        let response = try await client.get("start").value
        #expect(response.status == 200)
        #expect(response.body == Data("arrived".utf8))
        #expect(response.headers["X-Hop"] == "last")
        #expect(response.request.url.absoluteString == "https://a.example/next")
        #expect(response.request.headers["User-Agent"] != nil, "the request as sent, default headers included")
        #expect(response.metrics?.bytesReceived == 7)
    }

    @Test func aRetriedResponseIsReplacedByTheNextAttempts() async throws {
        let stub = StubTransport.firstThen(
            .response(status: 503, body: Data("busy".utf8)), .response(status: 200, body: Data("fine".utf8)))
        let configuration = Client.Configuration.retryingOnce
        let client = try Client(baseURL: "https://a.example/", configuration: configuration, transport: stub)
        let response = try await client.get("flaky").validate().value
        #expect(response.status == 200)
        #expect(response.body == Data("fine".utf8))
        #expect(stub.requests.count == 2)
    }

    @Test func aRedirectLoopStillFails() async throws {
        let stub = StubTransport { _ in .response(status: 302, headers: ["Location": "/again"], body: Data("loop".utf8))
        }
        let client = try Client(baseURL: "https://a.example/", transport: stub)
        await #expect(throws: SluiceError.self) { try await client.get("again").value }
    }
}

/// Hands on another transport's collected responses and keeps the last one, to tell whether the
/// caller receives that very response.
private final class RecordingTransport: Transport {
    let inner: any Transport
    let last = Mutex<Response?>(nil)

    init(_ inner: any Transport) {
        self.inner = inner
    }

    func transfer(_ request: PreparedRequest) -> SignalProducer<TransferEvent, SluiceError> {
        inner.transfer(request)
    }

    func response(for request: PreparedRequest, control: TransferControl?, monitor: TransferMonitor?)
        -> SignalProducer<Response, SluiceError>
    {
        inner.response(for: request, control: control, monitor: monitor).on(value: { [self] response in
            last.withLock { $0 = response }
        })
    }
}

/// Answers `response(for:)` itself, as a cache would: with the request it recorded the response
/// for, and no metrics.
private final class CachingTransport: Transport {
    let recordedFor: Request

    init(recordedFor: Request) {
        self.recordedFor = recordedFor
    }

    func transfer(_ request: PreparedRequest) -> SignalProducer<TransferEvent, SluiceError> {
        SignalProducer(error: SluiceError(.cancelled, "This transport answers whole responses only."))
    }

    func response(for request: PreparedRequest, control: TransferControl?, monitor: TransferMonitor?)
        -> SignalProducer<Response, SluiceError>
    {
        SignalProducer(
            value: Response(status: 200, headers: ["X-Cache": "hit"], body: Data("cached".utf8), request: recordedFor))
    }
}

/// Restarts the rest of the chain once when it fails, with the producer operator.
private struct RestartOnce: Interceptor {
    func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        chain.proceed(request).retry(upTo: 1)
    }
}

/// Numbers the requests it is asked to send, when it is asked (in `intercept`).
private final class Numbering: Interceptor {
    private let count = Atomic<Int>(0)

    func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        var request = request
        request.headers["X-Number"] = "\(count.wrappingAdd(1, ordering: .relaxed).newValue)"
        return chain.proceed(request)
    }
}

@Suite("Responses through the chain, edges")
struct ChainResponseEdgeTests {
    @Test func theTransportsResponseReachesTheCallerItself() async throws {
        let transport = RecordingTransport(StubTransport(reply: .response(status: 200, body: Data("abc".utf8))))
        let client = try Client(baseURL: "https://a.example/", transport: transport)
        let response = try await client.get("x").value
        let recorded = try #require(transport.last.withLock { $0 })
        #expect(response.isCopy(of: recorded), "handed over, not put together again")
        #expect(response.body == Data("abc".utf8))
    }

    @Test func aTransportsOwnResponseReachesTheCallerAsItIs() async throws {
        // A transport that answers as a cache would: with the request it recorded the response
        // for, and no metrics. The chain passes responses on; it does not rebuild them.
        let recorded = Request(method: .get, url: URL(string: "https://recorded.example/old")!)
        let client = try Client(baseURL: "https://a.example/", transport: CachingTransport(recordedFor: recorded))
        let response = try await client.get("new").value
        #expect(response.body == Data("cached".utf8))
        #expect(response.headers["X-Cache"] == "hit")
        #expect(response.request.url.absoluteString == "https://recorded.example/old")
        #expect(response.metrics == nil)
    }

    @Test func aRetryableResponseFollowedByAFailureEndsWithTheFailure() async throws {
        let stub = StubTransport.firstThen(
            .response(status: 503, body: Data("busy".utf8)), .failure(SluiceError(.cannotConnect, "refused")))
        let configuration = Client.Configuration.retryingOnce
        let client = try Client(baseURL: "https://a.example/", configuration: configuration, transport: stub)
        await #expect(throws: SluiceError.self) { try await client.get("x").value }
    }

    @Test func aRedirectWhoseNextHopFailsEndsWithTheFailure() async throws {
        let stub = StubTransport { request in
            request.url.path == "/a"
                ? .response(status: 302, headers: ["Location": "/b"], body: Data("moved".utf8))
                : .failure(SluiceError(.cannotConnect, "refused"))
        }
        let client = try Client(baseURL: "https://a.example/", transport: stub)
        await #expect(throws: SluiceError.self) { try await client.get("a").value }
    }

    @Test func aUsersRetryOperatorStartsAFreshRun() async throws {
        let stub = StubTransport.firstThen(
            .response(status: 500, body: Data("bad".utf8)), .response(status: 200, body: Data("good".utf8)))
        let client = try Client(baseURL: "https://a.example/", transport: stub)
        let response = try await client.get("x").validate().retry(upTo: 1).value
        #expect(response.status == 200)
        #expect(response.body == Data("good".utf8))
    }

    @Test func theRedirectInterceptorProceedsOnceWhenItsProducerIsMade() async throws {
        let sent = Mutex<[String]>([])
        let stub = StubTransport { request in
            let count = sent.withLock { s in
                s.append(request.headers["X-Number"] ?? "-")
                return s.count
            }
            return count == 1 ? .failure(SluiceError(.cannotConnect, "refused")) : .response(status: 200)
        }
        let client = try Client(
            baseURL: "https://a.example/", chain: [RestartOnce(), RedirectInterceptor(), Numbering()], transport: stub)
        _ = try await client.get("x").value
        // A restart runs the producer the redirect interceptor made: the interceptor below it is
        // asked once, as with `lift`.
        #expect(sent.withLock { $0 } == ["1", "1"])
    }
}

/// The hand-over with libcurl and a real server, no event observers (which would make requests
/// stream instead).
@Suite("Responses through the chain against MockServer")
struct ChainResponseServerTests {
    @Test func aRetriedStatusIsReplacedByTheNextAttemptsResponse() async throws {
        try await withServer { server, transport in
            server.script(
                "busy", ScriptedResponse(status: 503, headers: ["Retry-After": "0"], body: Data("busy".utf8)),
                ScriptedResponse(status: 200, headers: ["X-Final": "yes"], body: Data("ok".utf8)))
            var configuration = Client.Configuration()
            var policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1))
            policy.jitter = .none
            configuration.retryPolicy = policy
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            let response = try await client.get("busy").value
            #expect(response.status == 200)
            #expect(response.body == Data("ok".utf8))
            #expect(response.headers["X-Final"] == "yes")
            #expect(response.metrics?.bytesReceived == 2)
            #expect(server.requests(to: "/busy").count == 2)
        }
    }

    @Test func aReplayAfterARefusedTokenDeliversTheReplaysResponse() async throws {
        try await withServer { server, transport in
            let client = try Client(
                baseURL: server.baseURL.absoluteString,
                interceptors: [.bearer(token: { "stale" }, refresh: { "fresh" })], transport: transport)
            let response = try await client.get(server.url(for: .bearer(token: "fresh")).absoluteString).value
            #expect(response.status == 200)
            #expect(response.request.headers["Authorization"] == "Bearer fresh")
        }
    }

    @Test func aRedirectsBodyIsDroppedAndTheFinalHopDelivered() async throws {
        try await withServer { server, transport in
            server.script("r1", ScriptedResponse(status: 302, headers: ["Location": "/r2"], body: Data("moved".utf8)))
            server.script("r2", ScriptedResponse(status: 200, headers: ["X-Hop": "2"], body: Data("arrived".utf8)))
            let recording = RecordingTransport(transport)
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: recording)
            let response = try await client.get("r1").value
            let handedOver = try #require(recording.last.withLock { $0 })
            #expect(response.isCopy(of: handedOver), "the transport's response, handed over")
            #expect(response.status == 200)
            #expect(response.body == Data("arrived".utf8))
            #expect(response.request.url.path == "/r2")
            #expect(response.request.headers["User-Agent"] != nil)
            #expect(response.metrics?.bytesReceived == 7)
        }
    }

    @Test func aRedirectTheHandlerStopsIsTheResponse() async throws {
        try await withServer { server, transport in
            server.script("s1", ScriptedResponse(status: 302, headers: ["Location": "/s2"], body: Data("moved".utf8)))
            var configuration = Client.Configuration()
            configuration.redirectPolicy = .custom { _ in .stop }
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            let response = try await client.get("s1").value
            #expect(response.status == 302)
            #expect(response.body == Data("moved".utf8))
            #expect(server.requests(to: "/s2").isEmpty)
        }
    }

    @Test func aDownloadSentThroughSendHasItsFile() async throws {
        try await withServer { server, transport in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-handover-\(UUID()).bin")
            defer { try? FileManager.default.removeItem(at: file) }
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            var request = try client.makeRequest(.get, server.url(for: .bytes(10_000)).absoluteString)
            request.options.destination = .file(file)
            let response = try await client.send(request).value
            #expect(response.fileURL == file)
            #expect(response.body.isEmpty)
            #expect(try Data(contentsOf: file).count == 10_000)
        }
    }

    @Test func concurrentRequestsAndStartsOfOneProducerEachGetTheirOwnResponse() async throws {
        try await withServer { server, transport in
            for index in 0..<50 { server.script("p\(index)", .text("body-\(index)")) }
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let producer = client.get("p0")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        let response = try await client.get("p\(index)").value
                        #expect(String(decoding: response.body, as: UTF8.self) == "body-\(index)")
                        #expect(response.request.url.path == "/p\(index)")
                    }
                    group.addTask {
                        let response = try await producer.value
                        #expect(String(decoding: response.body, as: UTF8.self) == "body-0")
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

extension StubTransport {
    /// A stub that answers the first request with `first` and every later one with `later`.
    fileprivate static func firstThen(_ first: Reply, _ later: Reply) -> StubTransport {
        let answered = Atomic<Int>(0)
        return StubTransport { _ in answered.wrappingAdd(1, ordering: .relaxed).oldValue == 0 ? first : later }
    }
}

extension Client.Configuration {
    /// Retries once, at once, without jitter.
    fileprivate static var retryingOnce: Client.Configuration {
        var configuration = Client.Configuration()
        var policy = RetryPolicy(maxAttempts: 2, baseDelay: .zero)
        policy.jitter = .none
        configuration.retryPolicy = policy
        return configuration
    }
}
