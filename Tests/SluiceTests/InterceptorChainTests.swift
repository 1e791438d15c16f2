import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Synchronization
import Testing

/// Appends its name to the `X-Order` header, to show the order interceptors run in.
struct Tag: Interceptor {
    let name: String
    func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        var request = request
        request.headers.add(name: "X-Order", value: name)
        return chain.proceed(request)
    }
}

/// Records the headers of every request that passes.
final class Spy: Interceptor {
    let seen = Mutex<[HTTPHeaders]>([])
    func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        seen.withLock { $0.append(request.headers) }
        return chain.proceed(request)
    }
}

@Suite("Interceptor chain")
struct InterceptorChainTests {
    @Test func interceptorsRunInOrderThenTheBuiltInsThenTheTransport() async throws {
        try await withServer { server, transport in
            let spy = Spy()
            var configuration = Client.Configuration()
            configuration.authorization = .basic(user: "ada", password: "pw")
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration,
                interceptors: [Tag(name: "first"), spy, Tag(name: "second")], transport: transport)
            #expect(client.interceptors.count == 7)
            // Retry is always there, so that a request can ask for retries of its own.
            #expect(client.interceptors[3] is RetryInterceptor)
            #expect(client.interceptors[4] is RedirectInterceptor)
            #expect(client.interceptors[5] is DefaultHeadersInterceptor)
            #expect(client.interceptors[6] is AuthorizationInterceptor)

            let response = try await client.get("echo").value
            let echo = try JSONDecoder().decode(EchoReply.self, from: response.body)
            let order = echo.headers.filter { $0[0] == "X-Order" }.map { $0[1] }
            #expect(order == ["first", "second"])
            #expect(echo.header("Authorization") == Authorization.basic(user: "ada", password: "pw").headerValue)
            #expect(echo.header("User-Agent")?.contains("Sluice/") == true)
            // The user's interceptors see the request before defaults and credentials are added.
            let seen = try #require(spy.seen.withLock { $0.first })
            #expect(!seen.contains("User-Agent") && !seen.contains("Authorization"))
        }
    }

    @Test func aRequestsOwnHeaderWinsOverTheDefaults() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let response = try await client.get("echo", headers: ["User-Agent": "mine"]).value
            let echo = try JSONDecoder().decode(EchoReply.self, from: response.body)
            #expect(echo.headers.filter { $0[0].lowercased() == "user-agent" }.map { $0[1] } == ["mine"])
        }
    }

    @Test func anInterceptorCanAnswerWithoutTheNetwork() async throws {
        struct Canned: Interceptor {
            func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
                SignalProducer(
                    value: Response(
                        status: 200, headers: ["Content-Type": "text/plain"], body: Data("from cache".utf8),
                        metrics: TransferMetrics(), request: request))
            }
        }
        try await withServer { server, transport in
            let client = try Client(
                baseURL: server.baseURL.absoluteString, interceptors: [Canned()], transport: transport)
            #expect(try await client.get("echo").string().value == "from cache")
            #expect(server.recordedRequests.isEmpty)
        }
    }

    @Test func adaptAndOnResponseClosures() async throws {
        try await withServer { server, transport in
            let client = try Client(
                baseURL: server.baseURL.absoluteString,
                interceptors: [
                    .adapt { request in
                        try await Task.sleep(for: .milliseconds(1))
                        var request = request
                        request.headers["X-Signed"] = "yes"
                        return request
                    },
                    .onResponse { _, head in
                        if head.status == 418 { throw SluiceError(.validationFailed, "I'm a teapot") }
                        return head
                    },
                ], transport: transport)
            let echo = try JSONDecoder().decode(EchoReply.self, from: try await client.get("echo").value.body)
            #expect(echo.header("X-Signed") == "yes")
            await #expect(throws: SluiceError.self) { try await client.get("status/418").value }
            do throws(SluiceError) {
                _ = try await client.get("status/418").value
            } catch {
                #expect(error.message == "I'm a teapot")
            }
        }
    }

    @Test func aSynchronousAdapterRunsInLineAsTheRequestStarts() throws {
        let stub = StubTransport(reply: .never)
        let client = try Client(
            baseURL: "https://a.example/",
            interceptors: [
                .adapt { request in
                    var request = request
                    request.headers["X-Adapted"] = "in line"
                    return request
                }
            ], transport: stub)
        let disposable = client.get("x").start()
        // No task and no hop: the request reached the transport before `start` returned.
        #expect(stub.requests.map { $0.headers["X-Adapted"] } == ["in line"])
        disposable.dispose()
    }

    @Test func anAdapterThatThrowsFailsTheRequestAndNothingIsSent() async throws {
        struct Offline: Error {}
        try await withServer { server, transport in
            let client = try Client(
                baseURL: server.baseURL.absoluteString, interceptors: [.adapt { _ in throw Offline() }],
                transport: transport)
            do throws(SluiceError) {
                _ = try await client.get("echo").value
                Issue.record("the adapter's error fails the request")
            } catch {
                #expect(error.code == .interceptorFailed)
                #expect(error.underlyingError is Offline)
            }
            #expect(server.recordedRequests.isEmpty)
        }
    }

    @Test func perRequestInterceptorsRunBeforeTheClients() async throws {
        try await withServer { server, transport in
            let client = try Client(
                baseURL: server.baseURL.absoluteString, interceptors: [Tag(name: "client")], transport: transport)
            let response = try await client.intercepted(by: Tag(name: "request")).get("echo").value
            let echo = try JSONDecoder().decode(EchoReply.self, from: response.body)
            #expect(echo.headers.filter { $0[0] == "X-Order" }.map { $0[1] } == ["request", "client"])
            let plain = try JSONDecoder().decode(EchoReply.self, from: try await client.get("echo").value.body)
            #expect(plain.headers.filter { $0[0] == "X-Order" }.map { $0[1] } == ["client"])
        }
    }

    @Test func streamsGoThroughTheChainAndDeliverOnlyTheFinalBody() async throws {
        try await withServer { server, transport in
            let client = try Client(
                baseURL: server.baseURL.absoluteString, interceptors: [Tag(name: "stream")], transport: transport)
            let target = server.url(for: .bytes(300_000))
            let redirect = server.url(for: .redirect(status: 302, to: target))
            var received = Data()
            for try await chunk in try client.stream(redirect.absoluteString).values { received.append(chunk) }
            #expect(received == MockServer.deterministicBytes(count: 300_000))
            #expect(server.requests(to: "/bytes/300000").first?.headers["X-Order"] == "stream")
            let viaProducer = try await client.stream(redirect.absoluteString).producer.collect().value
            #expect(viaProducer.reduce(0) { $0 + $1.count } == 300_000)
        }
    }
}
