import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Synchronization
import Testing

@Suite("Redirect interceptor")
struct RedirectInterceptorTests {
    @Test(arguments: [301, 302, 303, 307, 308])
    func everyRedirectCodeAgainstTheServer(status: Int) async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let log = EventLog(client)
            let target = server.url(for: .echo)
            let response = try await client.request(
                .post, server.url(for: .redirect(status: status, to: target)).absoluteString,
                parameters: ["name": "ada"]
            ).value
            let echo = try JSONDecoder().decode(EchoReply.self, from: response.body)
            let keepsMethod = status == 307 || status == 308
            #expect(echo.method == (keepsMethod ? "POST" : "GET"))
            #expect(echo.bodyLength == (keepsMethod ? 8 : 0))
            #expect(response.request.url == target, "the response's request is the last hop's")
            #expect(log.redirects.map(\.status) == [status])
            #expect(log.redirects.first?.to == target)
        }
    }

    @Test func aFileBodyIsSentAgainFromItsStartOn307() async throws {
        try await withServer { server, transport in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-307-\(UUID()).bin")
            let bytes = MockServer.deterministicBytes(count: 200_000)
            try bytes.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let request = Request(
                method: .put, url: server.url(for: .redirect(status: 307, to: server.url(for: .echo))),
                body: .file(file))
            let echo = try JSONDecoder().decode(EchoReply.self, from: try await client.send(request).value.body)
            #expect(echo.bodyChecksum == MockServer.checksum(of: bytes))
        }
    }

    @Test func aCrossOriginRedirectDropsTheSecrets() async throws {
        try await withServers { server, other, transport in
            var configuration = Client.Configuration()
            configuration.authorization = .basic(user: "ada", password: "pw")
            configuration.redirectPolicy = RedirectPolicy(sensitiveHeaders: ["X-Api-Key"])
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration,
                interceptors: [.bearer { "user-token" }], transport: transport)
            let away = server.url(for: .redirect(status: 302, to: other.url(for: .echo)))
            _ = try await client.get(
                away.absoluteString, headers: ["Cookie": "session=1", "X-Api-Key": "key", "X-Trace": "t"]
            ).value
            let first = try #require(server.requests(to: "/redirect").first)
            #expect(first.headers["Authorization"] == "Bearer user-token")
            #expect(first.headers["X-Api-Key"] == "key")
            let received = try #require(other.requests(to: "/echo").first)
            for name in ["Authorization", "Cookie", "X-Api-Key"] {
                #expect(received.headers[name] == nil, "\(name) must not reach another origin")
            }
            #expect(received.headers["X-Trace"] == "t")
        }
    }

    /// The common API-key and token headers are secrets too: removed on a change of origin by
    /// default, in any case, whether the request or the client's default headers carry them.
    @Test func aCrossOriginRedirectDropsApiKeysAndTokensByDefault() async throws {
        try await withServers { server, other, transport in
            var configuration = Client.Configuration()
            configuration.defaultHeaders["Api-Key"] = "default-key"
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            let away = server.url(for: .redirect(status: 302, to: other.url(for: .echo)))
            let secrets = ["X-Api-Key", "x-auth-token", "X-AMZ-SECURITY-TOKEN", "X-Csrf-Token"]
            var headers = HTTPHeaders(secrets.map { ($0, "secret") })
            headers["X-Trace"] = "t"
            _ = try await client.get(away.absoluteString, headers: headers).value
            let first = try #require(server.requests(to: "/redirect").first)
            let received = try #require(other.requests(to: "/echo").first)
            for name in secrets + ["Api-Key"] {
                #expect(first.headers[name] != nil, "\(name) goes to the original origin")
                #expect(received.headers[name] == nil, "\(name) must not reach another origin")
            }
            #expect(received.headers["X-Trace"] == "t")
        }
    }

    /// `sensitiveHeaders` adds to the defaults; `removesSecretHeaders: false` keeps the API-key and
    /// token headers (for a service that redirects to a host of its own), never the credentials.
    @Test func theSecretHeadersCanBeAddedToOrKept() async throws {
        try await withServers { server, other, transport in
            var configuration = Client.Configuration()
            configuration.redirectPolicy = RedirectPolicy(sensitiveHeaders: ["X-Tenant"], removesSecretHeaders: false)
            configuration.defaultHeaders["X-Auth-Token"] = "default-token"
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            let away = server.url(for: .redirect(status: 307, to: other.url(for: .echo)))
            _ = try await client.get(
                away.absoluteString, headers: ["X-Api-Key": "key", "X-Tenant": "t", "Authorization": "Basic eA=="]
            ).value
            let received = try #require(other.requests(to: "/echo").first)
            #expect(received.headers["X-Api-Key"] == "key")
            #expect(received.headers["X-Auth-Token"] == "default-token")
            #expect(received.headers["X-Tenant"] == nil)
            #expect(received.headers["Authorization"] == nil)
        }
    }

    /// Two `Location`s that differ leave the target unknown: neither is followed, and the error
    /// names both. The same one twice is one target.
    @Test func aRedirectWithLocationsThatDifferIsRefused() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            server.script("/a", .text("a"))
            server.script("/b", .text("b"))
            server.script(
                "/two", ScriptedResponse(status: 302, headers: HTTPHeaders([("Location", "/a"), ("Location", "/b")])))
            server.script(
                "/same", ScriptedResponse(status: 302, headers: HTTPHeaders([("Location", "/a"), ("location", "/a")])))
            do throws(SluiceError) {
                let response = try await client.get("two").value
                Issue.record("refused, not \(response.status)")
            } catch {
                #expect(error.code == .redirectFailed)
                #expect(error.message.contains("\"/a\" and \"/b\""), "\(error)")
            }
            #expect(server.requests(to: "/a").isEmpty && server.requests(to: "/b").isEmpty)
            let response = try await client.get("same").value
            #expect(response.body == Data("a".utf8))
        }
    }

    @Test func theHopLimitAndLoopsFail() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let ten = try await client.get(server.url(for: .redirectChain(count: 10)).absoluteString).value
            #expect(ten.status == 200)
            do throws(SluiceError) {
                _ = try await client.get(server.url(for: .redirectChain(count: 11)).absoluteString).value
                Issue.record("eleven hops fail")
            } catch {
                #expect(error.code == .redirectFailed)
                #expect(error.message.contains("more than 10 times"))
            }
            server.script("/loop-a", ScriptedResponse(status: 302, headers: ["Location": "/loop-b"]))
            server.script("/loop-b", ScriptedResponse(status: 302, headers: ["Location": "/loop-a"]))
            do throws(SluiceError) {
                _ = try await client.get("loop-a").value
                Issue.record("a loop fails")
            } catch {
                #expect(error.code == .redirectFailed)
                #expect(error.message.contains("Redirect loop"))
            }
            #expect(server.requests(to: "/loop-a").count == 1)
        }
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/file"])
    func redirectsToOtherSchemesAreRefused(target: String) async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            do throws(SluiceError) {
                _ = try await client.get(
                    server.url(for: .redirect(status: 302, to: URL(string: target)!)).absoluteString
                ).value
                Issue.record("refused")
            } catch {
                #expect(error.code == .redirectFailed)
            }
        }
    }

    @Test func disposingDuringTheSecondHopCancelsItWithOneInterruption() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            // Long enough that the answer cannot arrive before the disposal, on a loaded machine too
            // (with 5 s it did once, the whole suite running beside a sanitizer build); the server's
            // shutdown drops the pending answer.
            let slow = server.url(for: .delay(.seconds(60)))
            let events = Mutex<[Event<Response, SluiceError>]>([])
            let disposable = client.get(server.url(for: .redirect(status: 302, to: slow)).absoluteString).start {
                event in events.withLock { $0.append(event) }
            }
            // The second hop is on the wire once the server has received it.
            try await eventually("the second hop reaches the server", timeout: .seconds(5)) {
                !server.requests(to: .delay(.seconds(60))).isEmpty
            }
            #expect(server.requests(to: .delay(.seconds(60))).count == 1)
            disposable.dispose()
            try await Task.sleep(for: .milliseconds(300))
            let seen = events.withLock { $0 }
            #expect(seen.count == 1, "one event: \(seen)")
            if case .interrupted = seen.first {} else { Issue.record("interrupted, not \(seen)") }
        }
    }

    @Test func redirectsCanBeTurnedOff() async throws {
        try await withServer { server, transport in
            var configuration = Client.Configuration()
            configuration.redirectPolicy = .none
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            let response = try await client.get(server.url(for: .redirectChain(count: 1)).absoluteString).value
            #expect(response.status == 302)
        }
    }
}
