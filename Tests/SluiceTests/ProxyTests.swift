import Foundation
import Sluice
import SluiceTesting
import Testing

/// Requests through real proxies on loopback: an HTTP proxy that forwards and tunnels
/// (`ConnectProxy`), the same behind TLS as an HTTPS proxy (`TLSFront`), and a SOCKS5 proxy
/// (`Socks5Proxy`). Each proxy records what it was asked, which proves the request went through
/// it; each asks for credentials, and wrong ones fail.
@Suite("Proxies: HTTP, HTTPS and SOCKS5")
struct ProxyTests {
    private static let credentials = (username: "ada", password: "p@ss:word/é")

    @Test func anHTTPProxyForwardsAPlainRequestWithItsCredentials() async throws {
        let proxy = try ConnectProxy(credentials: Self.credentials)
        defer { proxy.stop() }
        try await withServer { origin, transport in
            var options = RequestOptions()
            options.proxy = proxy.proxy.authenticated(username: "ada", password: "p@ss:word/é")
            let response = try await transport.send(origin.url(for: .echo), options: options)
            #expect(response.status == 200)
            #expect(
                proxy.recorded
                    == [.init(method: "GET", target: origin.url(for: .echo).absoluteString, authorized: true)])
            #expect(origin.recordedRequests.map(\.target) == ["/echo"])

            // Wrong credentials: the proxy's 407 is its refusal, not the origin's answer.
            options.proxy = proxy.proxy.authenticated(username: "ada", password: "wrong")
            let error = await expectFailure(.cannotConnect) {
                try await transport.send(origin.url(for: .echo), options: options)
            }
            #expect(
                error?.message.contains("The proxy \(proxy.url) refused the credentials") == true,
                "\(String(describing: error))")
            #expect(proxy.recorded.last?.authorized == false)
            #expect(origin.recordedRequests.count == 1)
        }
    }

    @Test func anHTTPProxyTunnelsHTTPSAndRefusesWrongCredentials() async throws {
        let proxy = try ConnectProxy(credentials: Self.credentials)
        defer { proxy.stop() }
        try await withServer(MockServer.start(tls: await TestPKI.shared.serverTLS)) { origin, transport in
            var options = RequestOptions()
            options.tls.trustRoots = .only(pem: try await TestPKI.shared.authorityCertificate)
            options.proxy = proxy.proxy.authenticated(username: "ada", password: "p@ss:word/é")
            let response = try await transport.send(origin.url(for: .echo), options: options)
            #expect(response.status == 200)
            #expect(
                proxy.recorded == [.init(method: "CONNECT", target: "127.0.0.1:\(origin.port)", authorized: true)])
            #expect(origin.recordedRequests.map(\.target) == ["/echo"])

            options.proxy = proxy.proxy.authenticated(username: "ada", password: "wrong")
            let error = await expectFailure(.cannotConnect) {
                try await transport.send(origin.url(for: .echo), options: options)
            }
            #expect(
                error?.message.contains("The proxy \(proxy.url) refused the credentials") == true,
                "\(String(describing: error))")
            #expect(error?.message.contains("407") == true, "\(String(describing: error))")
            #expect(origin.recordedRequests.count == 1)
        }
    }

    @Test func anHTTPSProxyIsReachedOverTLSWithItsOwnTrust() async throws {
        let pki = try await TestPKI.shared
        let proxy = try ConnectProxy(credentials: Self.credentials)
        defer { proxy.stop() }
        let front = try await TLSFront.start(
            upstreamPort: proxy.port, certificateChain: pki.server.certificate, privateKey: pki.server.key)
        try await withServer { origin, transport in
            let trusted = Proxy.https(
                host: "127.0.0.1", port: front.port, tls: .init(caCertificates: pki.authorityCertificate)
            )
            .authenticated(username: "ada", password: "p@ss:word/é")
            var options = RequestOptions()
            options.proxy = trusted
            let response = try await transport.send(origin.url(for: .echo), options: options)
            #expect(response.status == 200)
            #expect(front.handshakeCount == 1)
            #expect(proxy.recorded.map(\.target) == [origin.url(for: .echo).absoluteString])

            // The system's roots do not include the tests' authority: verification fails, with the proxy named.
            options.proxy = Proxy.https(host: "127.0.0.1", port: front.port).authenticated(
                username: "ada", password: "p@ss:word/é")
            let error = await expectFailure(.tlsFailure) {
                try await transport.send(origin.url(for: .echo), options: options)
            }
            #expect(
                error?.message.contains("the proxy https://127.0.0.1:\(front.port)") == true,
                "\(String(describing: error))")
            #expect(proxy.recorded.count == 1)

            // Explicitly insecure: reached without checks.
            options.proxy = Proxy.https(host: "127.0.0.1", port: front.port, tls: .insecure).authenticated(
                username: "ada", password: "p@ss:word/é")
            #expect(try await transport.send(origin.url(for: .echo), options: options).status == 200)
            #expect(proxy.recorded.count == 2)
        }
        await front.shutdown()
    }

    @Test func aSOCKS5ProxyResolvesTheHostNameAndChecksCredentials() async throws {
        let proxy = try Socks5Proxy(credentials: Self.credentials)
        defer { proxy.stop() }
        try await withServer { origin, transport in
            // A name nothing here resolves (.test is reserved): only the proxy can.
            let url = URL(string: "http://origin.sluice.test:\(origin.port)/echo")!
            var options = RequestOptions()
            options.proxy = proxy.proxy.authenticated(username: "ada", password: "p@ss:word/é")
            let response = try await transport.send(url, options: options)
            #expect(response.status == 200)
            #expect(proxy.recorded == [.init(addressType: 3, host: "origin.sluice.test", port: origin.port)])
            #expect(origin.recordedRequests.last?.headers["Host"] == "origin.sluice.test:\(origin.port)")

            options.proxy = proxy.proxy.authenticated(username: "ada", password: "wrong")
            let error = await expectFailure(.cannotConnect) { try await transport.send(url, options: options) }
            #expect(
                error?.message.contains("socks5h://127.0.0.1:\(proxy.port)") == true, "\(String(describing: error))")
            #expect(proxy.refusedCount == 1)
            #expect(origin.recordedRequests.count == 1)
        }
    }

    @Test func hostsOnTheBypassListGoDirectly() async throws {
        let proxy = try ConnectProxy()
        defer { proxy.stop() }
        try await withServer { origin, transport in
            var options = RequestOptions()
            options.proxy = proxy.proxy.bypassing(["example.com", "127.0.0.1"])
            let response = try await transport.send(origin.url(for: .echo), options: options)
            #expect(response.status == 200)
            #expect(proxy.recorded.isEmpty)
            #expect(origin.recordedRequests.count == 1)
        }
    }

    @Test func aProxyThatCannotBeUsedFailsNamingIt() async throws {
        #expect(throws: SluiceError.self) { try Proxy(url: "ftp://proxy:21") }
        #expect(throws: SluiceError.self) { try Proxy(url: "http://proxy") }
        let parsed = try Proxy(url: "socks5://us%40er:p%3Ass@[::1]:1080")
        #expect(parsed == Proxy.socks5(host: "::1", port: 1080).authenticated(username: "us@er", password: "p:ss"))
        #expect(parsed.description == "socks5h://[::1]:1080")

        try await withServer { origin, transport in
            var options = RequestOptions()
            options.proxy = .http(host: "proxy host", port: 3128)
            let invalid = await expectFailure(.invalidOption) {
                try await transport.send(origin.url(for: .echo), options: options)
            }
            #expect(invalid?.message.contains("proxy host") == true, "\(String(describing: invalid))")

            // Nothing listens there any more.
            let closed = try ConnectProxy()
            closed.stop()
            options.proxy = closed.proxy
            let refused = await expectFailure(.cannotConnect) {
                try await transport.send(origin.url(for: .echo), options: options)
            }
            #expect(
                refused?.message.contains("the proxy http://127.0.0.1:\(closed.port)") == true,
                "\(String(describing: refused))")
            #expect(origin.recordedRequests.isEmpty)
        }
    }
}
