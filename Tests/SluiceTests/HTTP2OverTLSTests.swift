import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import Testing

/// HTTP/2 negotiated by ALPN and multiplexed, and TLS failures, against a real nginx over TLS.
@Suite("HTTP/2 over TLS against nginx", .enabled(if: TLSNginx.isAvailable, "needs nginx and openssl (make deps)"))
struct HTTP2OverTLSTests {
    /// What `/protocol` answered: the protocol nginx saw and the connection's serial number.
    private func protocolAndConnection(_ response: Response) -> (String, String) {
        let parts = String(decoding: response.body, as: UTF8.self).split(separator: " ").map(String.init)
        return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
    }

    @Test func http2IsNegotiatedByALPN() async throws {
        let server = try await TLSNginx.start()
        defer { server.stop() }
        let transport = CurlTransport()
        let response = try await transport.send(server.url("/protocol"), options: server.trustingOptions())
        #expect(response.status == 200)
        #expect(response.httpVersion == .http2)
        #expect(protocolAndConnection(response).0 == "HTTP/2.0")
        // The handshake is measured on the new connection; the next request reuses it.
        let first = try #require(response.metrics)
        #expect(first.tlsHandshake > first.connect)
        #expect(first.alpnProtocol == "h2")
        let again = try #require(
            try await transport.send(server.url("/protocol"), options: server.trustingOptions()).metrics)
        #expect(again.reusedConnection)
        #expect(again.connect == .zero && again.tlsHandshake == .zero)
        // Read from the reused connection too.
        #expect(again.alpnProtocol == "h2" && again.tlsVersion == first.tlsVersion && again.tlsVersion != nil)
    }

    @Test func concurrentRequestsShareOneMultiplexedConnection() async throws {
        let server = try await TLSNginx.start()
        defer { server.stop() }
        let transport = CurlTransport()
        let url = server.url("/protocol")
        let options = server.trustingOptions()
        // Started together, before any connection exists: libcurl waits for the first connection's
        // ALPN answer (CURLOPT_PIPEWAIT) instead of opening one connection per request.
        let answers = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for _ in 0..<32 {
                group.addTask { protocolAndConnection(try await transport.send(url, options: options)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 32)
        #expect(Set(answers.map(\.0)) == ["HTTP/2.0"])
        #expect(Set(answers.map(\.1)).count == 1, "connections: \(Set(answers.map(\.1)).sorted())")
    }

    /// A small body goes out with the request's head (libcurl holds it), a large one is read in
    /// pieces: both arrive whole over an HTTP/2 stream, whatever the method.
    @Test func bodiesArriveWholeOverHTTP2() async throws {
        let server = try await TLSNginx.start()
        defer { server.stop() }
        let transport = CurlTransport()
        let large = Data((0..<300_000).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        let cases: [(HTTPMethod, Data)] = [
            (.post, Data("small body".utf8)), (.put, Data(repeating: UInt8(ascii: "x"), count: 1_024)),
            (.post, large), (.patch, large),
        ]
        for (method, body) in cases {
            let response = try await transport.send(
                method, server.url("/body"), body: .data(body), options: server.trustingOptions())
            #expect(response.status == 200)
            #expect(response.httpVersion == .http2)
            #expect(response.body == Data("\(method.rawValue) ".utf8) + body, "\(method) of \(body.count) bytes")
        }
    }

    /// Through a proxy, https goes through a CONNECT tunnel: the proxy's own answer to CONNECT is
    /// not the response, and its header block never reaches the response's events.
    @Test func aProxyTunnelsAnswerIsNotTheResponse() async throws {
        let server = try await TLSNginx.start()
        defer { server.stop() }
        let proxy = try ConnectProxy()
        defer { proxy.stop() }
        var options = server.trustingOptions()
        options.proxy = proxy.proxy
        let request = try Request(url: server.url("/protocol"), options: options).prepared()
        let transport = CurlTransport()
        let recorder = TransferRecorder()
        transport.transfer(request).start(recorder.observer)
        try await eventually("the transfer ends") { recorder.terminal != nil }
        let heads = recorder.heads
        #expect(heads.count == 1, "\(heads)")
        #expect(heads.first?.status == 200)
        #expect(heads.first?.headers.contains("Proxy-Agent") == false)
        #expect(heads.first?.headers.contains("Server") == true)
        #expect(recorder.terminal?.isCompleted == true, "\(String(describing: recorder.terminal))")
        #expect(proxy.connectCount == 1)
    }

    @Test func anHTTP1PreferenceStaysOnHTTP1OverTLS() async throws {
        let server = try await TLSNginx.start()
        defer { server.stop() }
        let response = try await CurlTransport().send(
            server.url("/protocol"), options: server.trustingOptions(.http1_1))
        #expect(response.httpVersion == .http1_1)
        #expect(protocolAndConnection(response).0 == "HTTP/1.1")
    }

    @Test func anUntrustedCertificateFailsWithATLSError() async throws {
        let server = try await TLSNginx.start()
        defer { server.stop() }
        let transport = CurlTransport()
        let error = await expectFailure(.tlsFailure) { try await transport.send(server.url("/protocol")) }
        #expect(error?.message.contains("certificate") == true, "\(String(describing: error))")
    }
}
