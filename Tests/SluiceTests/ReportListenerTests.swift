import Foundation
import Sluice
import SluiceTesting
import Synchronization
import Testing

/// `InterceptorChain.proceed(_:reportingTo:)`: an interceptor hears the retries and redirect hops
/// reported below it, whoever watches the client's events.
@Suite struct ReportListenerTests {
    @Test func anInterceptorHearsTheRedirectsAndRetriesBelowIt() async throws {
        let attempts = Mutex(0)
        let stub = StubTransport { request in
            if request.url.path == "/a" { return .response(status: 302, headers: ["Location": "/b"]) }
            let attempt = attempts.withLock { n -> Int in
                n += 1
                return n
            }
            return .response(status: attempt == 1 ? 503 : 200)
        }
        let heard = Heard()
        var configuration = Client.Configuration()
        configuration.retryPolicy = RetryPolicy(baseDelay: .zero, jitter: .none)
        let client = try Client(
            configuration: configuration, interceptors: [Listening(heard: heard, name: "outer")], transport: stub)
        _ = try await client.get("http://example.com/a").value
        #expect(heard.names == ["outer: redirected", "outer: retried", "outer: redirected"])
    }

    @Test func listenersOfNestedInterceptorsAllHear() async throws {
        let stub = StubTransport { request in
            request.url.path == "/a" ? .response(status: 302, headers: ["Location": "/b"]) : .response(status: 200)
        }
        let heard = Heard()
        let client = try Client(
            interceptors: [Listening(heard: heard, name: "outer"), Listening(heard: heard, name: "inner")],
            transport: stub)
        _ = try await client.get("http://example.com/a").value
        #expect(heard.names == ["inner: redirected", "outer: redirected"])
    }

    @Test func withoutAListenerReportsGoToEventsAsBefore() async throws {
        let stub = StubTransport { request in
            request.url.path == "/a" ? .response(status: 302, headers: ["Location": "/b"]) : .response(status: 200)
        }
        let client = try Client(transport: stub)
        let redirects = Mutex(0)
        client.events.observeValues { event in
            if case .redirected = event.kind { redirects.withLock { $0 += 1 } }
        }
        _ = try await client.get("http://example.com/a").value
        #expect(redirects.withLock { $0 } == 1)
    }
}

/// The names of the reports heard, in order.
private final class Heard: Sendable {
    private let state = Mutex<[String]>([])
    var names: [String] { state.withLock { $0 } }
    func add(_ name: String) { state.withLock { $0.append(name) } }
}

/// Proceeds with a listener that notes retries and redirects under its name.
private struct Listening: Interceptor {
    let heard: Heard
    let name: String

    func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        chain.proceed(
            request,
            reportingTo: { kind in
                switch kind {
                case .redirected: heard.add("\(name): redirected")
                case .retried: heard.add("\(name): retried")
                default: break
                }
            })
    }
}
