import Foundation
import Sluice
import SluiceTesting
import Testing

/// Host overrides send a request's connection elsewhere while the request keeps its host name, and
/// belong to the requests that carry them; the IP preference picks the address family.
@Suite("Host overrides and the IP preference")
struct HostOverrideTests {
    @Test func aResolvedHostReachesTheServerAndKeepsItsName() async throws {
        try await withServer { server, transport in
            // A name nothing here resolves (.test is reserved).
            let url = URL(string: "http://api.example.test:\(server.port)/echo")!
            var options = RequestOptions()
            options.hostOverrides = [.resolve("api.example.test", port: server.port, to: "127.0.0.1")]
            let response = try await transport.send(url, options: options)
            #expect(response.status == 200)
            #expect(server.recordedRequests.last?.headers["Host"] == "api.example.test:\(server.port)")

            // Neither the name cache nor the connection it made serves a request without it.
            await expectFailure(.dnsFailure) { try await transport.send(url) }
            #expect(server.recordedRequests.count == 1)
            // It still applies to the requests that carry it.
            #expect(try await transport.send(url, options: options).status == 200)
            #expect(server.recordedRequests.count == 2)
        }
    }

    /// Over TLS the certificate is checked for the URL's host, not for the address connected to:
    /// a certificate for `other.example` only passes through an override, and fails by address.
    @Test func anHTTPSRequestKeepsItsHostNameForTheCertificateCheck() async throws {
        let pki = try await TestPKI.shared
        try await withServer(MockServer.start(tls: pki.otherHost.serverTLS)) { server, transport in
            var options = RequestOptions()
            options.tls.trustRoots = .only(pem: pki.authorityCertificate)
            options.hostOverrides = [.resolve("other.example", port: server.port, to: "127.0.0.1")]
            let url = URL(string: "https://other.example:\(server.port)/echo")!
            let response = try await transport.send(url, options: options)
            #expect(response.status == 200)
            #expect(server.recordedRequests.last?.headers["Host"] == "other.example:\(server.port)")

            // The same server by its address: the certificate does not name it.
            await expectFailure(.tlsFailure) {
                try await transport.send(URL(string: "https://127.0.0.1:\(server.port)/echo")!, options: options)
            }
            #expect(server.recordedRequests.count == 1)
        }
    }

    @Test func aConnectToOverrideGoesToAnotherHostAndPort() async throws {
        try await withServer { server, transport in
            let url = URL(string: "http://api.example.test:8080/echo")!
            var options = RequestOptions()
            options.hostOverrides = [
                .connect("other.example.test", port: 8080, to: "192.0.2.1", port: 9),
                .connect("api.example.test", port: 8080, to: "localhost", port: server.port),
            ]
            options.ipPreference = .ipv4
            let response = try await transport.send(url, options: options)
            #expect(response.status == 200)
            #expect(server.recordedRequests.last?.headers["Host"] == "api.example.test:8080")
        }
    }

    @Test(.enabled(if: IPv6Loopback.isAvailable, "no IPv6 loopback address"))
    func theIPPreferencePicksTheAddressFamily() async throws {
        let (v6, v4) = try await Self.serversOnOnePort()
        try await withServer(v6) { v6, transport in
            try await withServer(v4) { v4, _ in
                let url = URL(string: "http://localhost:\(v6.port)/echo")!
                var options = RequestOptions()
                options.ipPreference = .ipv6
                #expect(try await transport.send(url, options: options).status == 200)
                #expect(v6.recordedRequests.count == 1)
                #expect(v4.recordedRequests.isEmpty)
                options.ipPreference = .ipv4
                #expect(try await transport.send(url, options: options).status == 200)
                #expect(v4.recordedRequests.count == 1)
                #expect(v6.recordedRequests.count == 1)

                // An IPv6 address cannot be reached with IPv4 only.
                let literal = URL(string: "http://[::1]:\(v6.port)/echo")!
                await expectFailure(.cannotConnect) { try await transport.send(literal, options: options) }
                let plain = try await transport.send(literal)
                #expect(plain.status == 200)
                #expect(v6.recordedRequests.count == 2)
            }
        }
    }

    @Test func anOverrideThatCannotBeUsedFailsBeforeSending() async throws {
        try await withServer { server, transport in
            var options = RequestOptions()
            options.hostOverrides = [.resolve("api.example.test", port: server.port, to: "not-an-address")]
            let error = await expectFailure(.invalidOption) {
                try await transport.send(URL(string: "http://api.example.test:\(server.port)/")!, options: options)
            }
            #expect(error?.message.contains("api.example.test:\(server.port) -> not-an-address") == true)
            options.hostOverrides = [.connect("api.example.test:1", port: 80, to: "127.0.0.1", port: server.port)]
            await expectFailure(.invalidOption) { try await transport.send(server.url(for: .echo), options: options) }
            #expect(server.recordedRequests.isEmpty)
        }
    }

    /// A server on ::1 and another on 127.0.0.1 with the same port (the first free one both get).
    static func serversOnOnePort() async throws -> (v6: MockServer, v4: MockServer) {
        for _ in 0..<20 {
            let v6 = try await MockServer.start(host: "::1")
            if let v4 = try? await MockServer.start(host: "127.0.0.1", port: v6.port) { return (v6, v4) }
            try await v6.shutdown()
        }
        throw POSIXError(.EADDRINUSE)
    }
}
