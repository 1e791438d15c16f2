import Foundation
import SluiceTesting
import Synchronization
import Testing

@testable import Sluice

/// Uppercases every body chunk that passes: a user's interceptor that changes responses.
struct ShoutingInterceptor: Interceptor {
    func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<TransferEvent, SluiceError> {
        chain.proceed(request).map { event in
            guard case .body(let chunk) = event else { return event }
            return .body(Data(String(decoding: chunk, as: UTF8.self).uppercased().utf8))
        }
    }
}

/// A client whose chain is made only of Sluice's own interceptors hands the transport's collected
/// response to the caller whole; one with a user's interceptor sends the body through the chain.
@Suite("Response hand-over")
struct ResponseHandOverTests {
    @Test func onlyAChainOfTheBuiltInInterceptorsHandsResponsesOver() throws {
        var configuration = Client.Configuration()
        configuration.retryPolicy = RetryPolicy()
        configuration.authorization = .basic(user: "ada", password: "pw")
        let stub = StubTransport(reply: .response(status: 200))
        let builtIn = try Client(baseURL: "https://a.example/", configuration: configuration, transport: stub)
        #expect(builtIn.preservesResponses)
        #expect(builtIn.intercepted(by: .bearer { "token" }).preservesResponses)
        let shouting = try Client(baseURL: "https://a.example/", interceptors: [ShoutingInterceptor()], transport: stub)
        #expect(!shouting.preservesResponses)
        #expect(!builtIn.intercepted(by: ShoutingInterceptor()).preservesResponses)
    }

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
        #expect(client.preservesResponses)
        let response = try await client.get("start").value
        #expect(response.status == 200)
        #expect(response.body == Data("arrived".utf8))
        #expect(response.headers["X-Hop"] == "last")
        #expect(response.request.url.absoluteString == "https://a.example/next")
        #expect(response.request.headers["User-Agent"] != nil, "the request as sent, default headers included")
        #expect(response.metrics?.bytesReceived == 7)
    }

    @Test func aRetriedResponseIsReplacedByTheNextAttempts() async throws {
        let attempts = Atomic<Int>(0)
        let stub = StubTransport { _ in
            attempts.wrappingAdd(1, ordering: .relaxed).oldValue == 0
                ? .response(status: 503, body: Data("busy".utf8))
                : .response(status: 200, body: Data("fine".utf8))
        }
        var configuration = Client.Configuration()
        var policy = RetryPolicy(maxAttempts: 2, baseDelay: .zero)
        policy.jitter = .none
        configuration.retryPolicy = policy
        let client = try Client(baseURL: "https://a.example/", configuration: configuration, transport: stub)
        let response = try await client.get("flaky").validate().value
        #expect(response.status == 200)
        #expect(response.body == Data("fine".utf8))
        #expect(attempts.load(ordering: .relaxed) == 2)
    }

    @Test func aRedirectLoopStillFails() async throws {
        let stub = StubTransport { _ in .response(status: 302, headers: ["Location": "/again"], body: Data("loop".utf8))
        }
        let client = try Client(baseURL: "https://a.example/", transport: stub)
        await #expect(throws: SluiceError.self) { try await client.get("again").value }
    }
}
