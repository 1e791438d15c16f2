import Foundation
import Sluice
import SluiceTesting
import Testing

/// A pooled easy handle never carries an option from one request to the next. Each test sends a
/// request with options that are not the defaults, then a plain request on the same transport, and
/// checks from the server's side (or from the outcome) that the plain one inherited none of them.
///
/// Requests sent one after another on a fresh transport run on one easy handle: the loop makes a
/// handle only when its pool is empty, and a finished transfer's handle is back in the pool before
/// its response or failure is delivered, so the next request takes that same handle.
@Suite("Pooled easy handles carry no option from one request to the next")
struct PooledHandleTests {
    /// The plain request every test ends with: a GET with the default options.
    private func expectPlainGET(
        _ request: RecordedRequest?, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let request else {
            Issue.record("the server recorded no plain GET", sourceLocation: sourceLocation)
            return
        }
        #expect(request.method == "GET", sourceLocation: sourceLocation)
        #expect(request.target == "/echo", sourceLocation: sourceLocation)
        #expect(request.bodyLength == 0, sourceLocation: sourceLocation)
        for name in ["Content-Length", "Transfer-Encoding", "Content-Type", "Expect", "Authorization", "Cookie"] {
            #expect(!request.headers.contains(name), "\(name) was sent", sourceLocation: sourceLocation)
        }
        #expect(request.httpVersion == "HTTP/1.1", sourceLocation: sourceLocation)
        #expect(request.headers.contains("Accept-Encoding"), sourceLocation: sourceLocation)
    }

    @Test func aMethodAndABodyAreNotCarriedOver() async throws {
        let large = MockServer.deterministicBytes(count: 100_000)
        // With the head (the handle holds a copy), read in pieces (read and seek data, upload or
        // POST sizes), bodiless methods of their own (NOBODY, a custom request).
        let requests: [(HTTPMethod, RequestBody)] = [
            (.post, .data(Data("small=form".utf8))), (.put, .data(Data("small body".utf8))),
            (.post, .data(large)), (.put, .data(large)), (.patch, .empty), (.delete, .empty), (.head, .empty),
            (.get, .data(Data("a GET with a body".utf8))),
        ]
        try await withServer { server, transport in
            for (method, body) in requests {
                let response = try await transport.send(method, server.url(for: .echo), body: body)
                #expect(response.status == 200)
                #expect(server.recordedRequests.last?.method == method.rawValue)
                let plain = try await transport.send(server.url(for: .echo))
                #expect(plain.status == 200)
                // After a HEAD the response has its body again.
                let echo = try JSONDecoder().decode(EchoReply.self, from: plain.body)
                #expect(echo.method == "GET", "after \(method)")
                expectPlainGET(server.recordedRequests.last)
            }
        }
    }

    /// A handle that ran with a jar's cookie store detaches it, and turns libcurl's cookie engine
    /// off, for a request without a jar: left on, the engine made a store of the handle's own,
    /// whose cookies a later request of any client on the transport would send.
    @Test func aCookieStoreIsNotCarriedOver() async throws {
        try await withServer { server, transport in
            let withJar = try Client(transport: transport)
            var configuration = Client.Configuration()
            configuration.cookies = nil
            let withoutJar = try Client(configuration: configuration, transport: transport)
            let echo = server.url(for: .echo).absoluteString
            _ = try await withJar.get(server.url(for: .setCookies(["a": "1"])).absoluteString).value
            _ = try await withJar.get(echo).value
            #expect(server.recordedRequests.last?.headers["Cookie"] == "a=1")

            _ = try await withoutJar.get(server.url(for: .setCookies(["b": "2"])).absoluteString).value
            _ = try await withoutJar.get(echo).value
            expectPlainGET(server.recordedRequests.last)
            _ = try await transport.send(server.url(for: .echo))
            expectPlainGET(server.recordedRequests.last)

            // The jar's handle again: its own cookie only.
            _ = try await withJar.get(echo).value
            #expect(server.recordedRequests.last?.headers["Cookie"] == "a=1")
            #expect(withJar.cookies?.all.map(\.name) == ["a"])
        }
    }

    @Test func credentialsAreNotCarriedOver() async throws {
        try await withServer { server, transport in
            var headers = HTTPHeaders()
            headers.setAuthorization(.bearer("secret-token"))
            _ = try await transport.send(server.url(for: .echo), headers: headers)
            #expect(server.recordedRequests.last?.headers["Authorization"] == "Bearer secret-token")
            _ = try await transport.send(server.url(for: .echo))
            expectPlainGET(server.recordedRequests.last)

            // Credentials in the URL, which libcurl sends as Basic authorization.
            var parts = URLComponents(url: server.url(for: .echo), resolvingAgainstBaseURL: false)!
            parts.user = "ada"
            parts.password = "hunter2"
            _ = try await transport.send(parts.url!)
            #expect(server.recordedRequests.last?.headers["Authorization"] == "Basic YWRhOmh1bnRlcjI=")
            _ = try await transport.send(server.url(for: .echo))
            expectPlainGET(server.recordedRequests.last)
        }
    }

    @Test func aProxyIsNotCarriedOver() async throws {
        let proxy = try await MockServer.start()
        do {
            try await withServer { server, transport in
                var options = RequestOptions()
                options.proxy = try Proxy(url: proxy.baseURL.absoluteString)
                _ = try await transport.send(server.url(for: .echo), options: options)
                // A proxy gets the absolute URL; the origin got nothing.
                #expect(proxy.recordedRequests.map(\.target) == [server.url(for: .echo).absoluteString])
                #expect(server.recordedRequests.isEmpty)
                _ = try await transport.send(server.url(for: .echo))
                #expect(proxy.recordedRequests.count == 1)
                #expect(server.recordedRequests.count == 1)
                expectPlainGET(server.recordedRequests.last)
            }
        } catch {
            try? await proxy.shutdown()
            throw error
        }
        try await proxy.shutdown()
    }

    @Test func proxyCredentialsAndABypassListAreNotCarriedOver() async throws {
        let proxy = try ConnectProxy(credentials: (username: "ada", password: "secret"))
        defer { proxy.stop() }
        try await withServer { server, transport in
            let authenticated = proxy.proxy.authenticated(username: "ada", password: "secret")
            var options = RequestOptions()
            options.proxy = authenticated
            #expect(try await transport.send(server.url(for: .echo), options: options).status == 200)
            // The same proxy without credentials: none are sent, and it answers 407.
            options.proxy = proxy.proxy
            let refused = await expectFailure(.cannotConnect) {
                try await transport.send(server.url(for: .echo), options: options)
            }
            #expect(refused?.message.contains("asks for credentials") == true, "\(String(describing: refused))")
            #expect(proxy.recorded.map(\.authorized) == [true, false])

            // Bypassed for the loopback address, then not.
            options.proxy = authenticated.bypassing(["127.0.0.1"])
            #expect(try await transport.send(server.url(for: .echo), options: options).status == 200)
            #expect(proxy.recorded.count == 2)
            options.proxy = authenticated
            #expect(try await transport.send(server.url(for: .echo), options: options).status == 200)
            #expect(proxy.recorded.count == 3)

            _ = try await transport.send(server.url(for: .echo))
            #expect(proxy.recorded.count == 3)
            expectPlainGET(server.recordedRequests.last)
        }
    }

    /// An HTTPS proxy's own CA certificates, and turning its checks off, are not carried over:
    /// each request after one that passed by them fails verification.
    @Test func anHTTPSProxysTrustIsNotCarriedOver() async throws {
        let pki = try await TestPKI.shared
        let proxy = try ConnectProxy()
        defer { proxy.stop() }
        // Its certificate names 127.0.0.1; the second front, on 127.0.0.2, has a name it does not match.
        let front = try await TLSFront.start(
            upstreamPort: proxy.port, certificateChain: pki.server.certificate, privateKey: pki.server.key)
        let misnamed = try await TLSFront.start(
            host: "127.0.0.2", upstreamPort: proxy.port, certificateChain: pki.server.certificate,
            privateKey: pki.server.key)
        try await withServer { server, transport in
            func send(_ proxy: Proxy) async throws -> Response {
                var options = RequestOptions()
                options.proxy = proxy
                return try await transport.send(server.url(for: .echo), options: options)
            }
            let trust = Proxy.TLS(caCertificates: pki.authorityCertificate)
            // The CA certificates (CURLOPT_PROXY_CAINFO_BLOB).
            #expect(try await send(.https(host: "127.0.0.1", port: front.port, tls: trust)).status == 200)
            await expectFailure(.tlsFailure) { try await send(.https(host: "127.0.0.1", port: front.port)) }
            // The peer check (CURLOPT_PROXY_SSL_VERIFYPEER): the name matches, the issuer is unknown.
            #expect(try await send(.https(host: "127.0.0.1", port: front.port, tls: .insecure)).status == 200)
            await expectFailure(.tlsFailure) { try await send(.https(host: "127.0.0.1", port: front.port)) }
            // The name check (CURLOPT_PROXY_SSL_VERIFYHOST): the issuer is trusted, the name is not its.
            #expect(try await send(.https(host: "127.0.0.2", port: misnamed.port, tls: .insecure)).status == 200)
            await expectFailure(.tlsFailure) {
                try await send(.https(host: "127.0.0.2", port: misnamed.port, tls: trust))
            }
            #expect(proxy.recorded.count == 3)

            _ = try await transport.send(server.url(for: .echo))
            expectPlainGET(server.recordedRequests.last)
        }
        await front.shutdown()
        await misnamed.shutdown()
    }

    @Test func aHostOverrideIsNotCarriedOver() async throws {
        try await withServer { server, transport in
            let url = URL(string: "http://api.example.test:\(server.port)/echo")!
            var options = RequestOptions()
            options.hostOverrides = [.resolve("api.example.test", port: server.port, to: "127.0.0.1")]
            #expect(try await transport.send(url, options: options).status == 200)
            await expectFailure(.dnsFailure) { try await transport.send(url) }
            _ = try await transport.send(server.url(for: .echo))
            expectPlainGET(server.recordedRequests.last)
        }
    }

    @Test(.enabled(if: IPv6Loopback.isAvailable, "no IPv6 loopback address"))
    func anIPPreferenceIsNotCarriedOver() async throws {
        try await withServer(host: "::1") { server, transport in
            var options = RequestOptions()
            options.ipPreference = .ipv4
            // An IPv6 address, with IPv4 only.
            await expectFailure(.cannotConnect) { try await transport.send(server.url(for: .echo), options: options) }
            _ = try await transport.send(server.url(for: .echo))
            expectPlainGET(server.recordedRequests.last)
        }
    }

    @Test func aUnixSocketIsNotCarriedOver() async throws {
        let directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("sluice-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("pooled.sock").path
        try await withServer { server, transport in
            try await withServer(MockServer.start(unixSocketPath: path)) { socketServer, _ in
                var options = RequestOptions()
                options.unixSocketPath = path
                #expect(try await transport.send(server.url(for: .echo), options: options).status == 200)
                #expect(socketServer.recordedRequests.count == 1)
                #expect(server.recordedRequests.isEmpty)
                _ = try await transport.send(server.url(for: .echo))
                #expect(socketServer.recordedRequests.count == 1)
                expectPlainGET(server.recordedRequests.last)
            }
        }
    }

    /// A failed name lookup leaves nothing behind that fails the next request (libcurl 7.88 then
    /// refuses to size the receive buffer, see `CurlLoop.finish`).
    @Test func aFailedNameLookupDoesNotFailTheNextRequest() async throws {
        try await withServer { server, transport in
            // A name nothing resolves (.test is reserved).
            await expectFailure(.dnsFailure) { try await transport.send(URL(string: "http://nothing.sluice.test/")!) }
            _ = try await transport.send(server.url(for: .echo))
            expectPlainGET(server.recordedRequests.last)
        }
    }

    @Test func timeoutsAreNotCarriedOver() async throws {
        try await withServer { server, transport in
            var options = RequestOptions()
            options.timeout = .milliseconds(400)
            options.connectTimeout = .milliseconds(400)
            _ = try await transport.send(server.url(for: .echo), options: options)
            // Longer than the timeout of the request before.
            let slow = try await transport.send(server.url(for: .delay(.milliseconds(1_000))))
            #expect(slow.status == 200)
            #expect(server.recordedRequests.last?.method == "GET")
        }
    }

    @Test func anHTTPVersionIsNotCarriedOver() async throws {
        try await withServer { server, transport in
            var options = RequestOptions()
            options.httpVersion = .http2
            options.timeout = .seconds(5)
            // HTTP/2 with prior knowledge, which MockServer does not speak: it fails one way or another.
            _ = try? await transport.send(server.url(for: .echo), options: options)
            let plain = try await transport.send(server.url(for: .echo))
            #expect(plain.status == 200)
            #expect(plain.httpVersion == .http1_1)
            expectPlainGET(server.recordedRequests.last)
        }
    }

    @Test func decompressionIsNotCarriedOver() async throws {
        try await withServer { server, transport in
            let decoded = MockServer.deterministicBytes(count: 10_000)
            var raw = RequestOptions()
            raw.decompress = false
            // Off, on (the default), off again: each request decodes as it asks, whatever came before.
            for decompress in [false, true, false] {
                let response = try await transport.send(
                    server.url(for: .gzip(bytes: decoded.count)), options: decompress ? RequestOptions() : raw)
                #expect(response.status == 200)
                #expect((response.body == decoded) == decompress, "decompress: \(decompress)")
                #expect(response.body.starts(with: [0x1f, 0x8b]) == !decompress, "decompress: \(decompress)")
                #expect(server.recordedRequests.last?.headers.contains("Accept-Encoding") == decompress)
            }
            _ = try await transport.send(server.url(for: .echo))
            expectPlainGET(server.recordedRequests.last)
        }
    }

    @Test func aReceiveBufferSizeIsNotCarriedOver() async throws {
        try await withServer { server, transport in
            let url = server.url(for: .bytes(512 * 1024))
            var small = RequestOptions()
            small.receiveBufferSize = 1024
            // libcurl hands over at most one buffer's worth per call.
            #expect(try await largestChunk(transport, url, options: small) <= 1024)
            #expect(try await largestChunk(transport, url) > 1024)

            // A download to a file has a large buffer of its own, and the next request's body goes to
            // memory again.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-pooled-\(UUID()).bin")
            defer { try? FileManager.default.removeItem(at: file) }
            var download = RequestOptions()
            download.destination = .file(file)
            let downloaded = try await transport.send(url, options: download)
            #expect(downloaded.status == 200)
            #expect(try Data(contentsOf: file).count == 512 * 1024)
            let plain = try await transport.send(server.url(for: .echo))
            #expect(try JSONDecoder().decode(EchoReply.self, from: plain.body).method == "GET")
            #expect(try Data(contentsOf: file).count == 512 * 1024)
            expectPlainGET(server.recordedRequests.last)
        }
    }

    /// A partial file, its download limit and its progress rate: the next request on the handle
    /// writes no file, has the in-memory limit and the default rate.
    @Test func aPartialFileAndItsLimitsAreNotCarriedOver() async throws {
        try await withServer { server, transport in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-pooled-\(UUID()).bin")
            defer { try? FileManager.default.removeItem(at: file) }
            let whole = MockServer.deterministicBytes(count: 1000)
            try whole.prefix(10).write(to: file)
            var partial = RequestOptions()
            partial.destination = .partialFile(file, offset: 10)
            partial.maximumDownloadSize = 2000
            partial.maximumBodySize = 1
            partial.progressInterval = .zero
            let resumed = try await transport.send(
                server.url(for: .range(bytes: 1000)), headers: ["Range": "bytes=10-"], options: partial)
            #expect(resumed.status == 206)
            #expect(resumed.fileURL == file)
            #expect(try Data(contentsOf: file) == whole)

            var small = RequestOptions()
            small.maximumBodySize = 100_000
            let plain = try await transport.send(server.url(for: .bytes(50_000)), options: small)
            #expect(plain.fileURL == nil)
            #expect(plain.body == MockServer.deterministicBytes(count: 50_000))
            #expect(try Data(contentsOf: file) == whole)
            await #expect(throws: SluiceError.self) {
                try await transport.send(server.url(for: .bytes(150_000)), options: small)
            }
            _ = try await transport.send(server.url(for: .echo))
            expectPlainGET(server.recordedRequests.last)
        }
    }

    /// The largest body chunk of one transfer of `url`.
    private func largestChunk(
        _ transport: CurlTransport, _ url: URL, options: RequestOptions = RequestOptions()
    ) async throws -> Int {
        let recorder = TransferRecorder()
        let request = try Request(url: url, options: options).prepared()
        transport.transfer(request).start(recorder.observer)
        try await eventually("the transfer ended") { recorder.terminal != nil }
        #expect(recorder.terminal?.isCompleted == true, "\(String(describing: recorder.terminal))")
        #expect(recorder.bodyBytes == 512 * 1024)
        return recorder.events.reduce(0) { largest, event in
            if case .value(.body(let chunk)) = event { return max(largest, chunk.count) }
            return largest
        }
    }

    /// TLS verification turned off for one request is on again for the next: against nginx with a
    /// self-signed certificate, the plain request fails verification.
    @Test(.enabled(if: TLSNginx.isAvailable, "needs nginx and openssl (make deps)"))
    func turningOffTLSVerificationIsNotCarriedOver() async throws {
        let server = try await TLSNginx.start()
        defer { server.stop() }
        let transport = CurlTransport()
        var untrusted = RequestOptions()
        untrusted.tls.insecureSkipsPeerVerification = true
        untrusted.tls.insecureSkipsHostNameVerification = true
        var http1 = untrusted
        http1.httpVersion = .http1_1
        // Its connection closed after it, so that the next request negotiates a new one (libcurl
        // would reuse an HTTP/1.1 connection for a request that prefers HTTP/2).
        let first = try await transport.send(server.url("/protocol"), headers: ["Connection": "close"], options: http1)
        #expect(first.httpVersion == .http1_1)
        // Only the HTTP version differs: HTTP/2 again, by ALPN.
        let second = try await transport.send(server.url("/protocol"), options: untrusted)
        #expect(second.httpVersion == .http2)
        let error = await expectFailure(.tlsFailure) { try await transport.send(server.url("/protocol")) }
        #expect(error?.message.contains("certificate") == true, "\(String(describing: error))")
    }
}
