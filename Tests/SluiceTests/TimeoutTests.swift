import Foundation
import Sluice
import Testing

/// The idle timeout counts bytes, not complete lines, and every timeout reports the one that fired,
/// on a new connection and on a reused one, against servers that answer at their own pace.
///
/// The timeouts are short, the servers' pauses far from them (a byte every 200 ms against a 1 s idle
/// timeout), and no test asserts more than the order of events: a loaded machine only makes them
/// slower.
@Suite("Timeouts: what counts as idle, and which timeout fired")
struct TimeoutTests {
    private static let response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

    private func options(
        idle: Duration = .seconds(30), total: Duration? = nil, connect: Duration = .seconds(10)
    ) -> RequestOptions {
        var options = RequestOptions()
        options.idleTimeout = idle
        options.timeout = total
        options.connectTimeout = connect
        options.httpVersion = .http1_1
        return options
    }

    /// Fails unless `operation` fails with a timeout of `kind`; returns when it failed.
    @discardableResult
    private func expectTimeout(
        _ kind: SluiceError.TimeoutKind, sourceLocation: SourceLocation = #_sourceLocation,
        _ operation: () async throws -> Response
    ) async -> ContinuousClock.Instant {
        let error = await expectFailure(.timedOut, sourceLocation: sourceLocation, operation)
        #expect(error?.timeout == kind, "\(String(describing: error))", sourceLocation: sourceLocation)
        return .now
    }

    // MARK: The idle timeout counts bytes

    @Test func headersArrivingAByteAtATimeKeepTheTransferAlive() async throws {
        // The status line alone takes 3.4 s, over three idle timeouts, without a complete line;
        // libcurl calls the header callback only once a line is complete.
        let server = try PacedServer { _ in [.drip(Self.response, interval: .milliseconds(200))] }
        defer { server.stop() }
        let response = try await CurlTransport().send(server.url(), options: options(idle: .seconds(1)))
        #expect(response.status == 200)
        #expect(response.body == Data("ok".utf8))
    }

    @Test func aServerThatFallsSilentMidLineIsStillCutByTheIdleTimeout() async throws {
        let server = try PacedServer { _ in
            [.drip("HTTP/1.1 20", interval: .milliseconds(200)), .holdUntilClosed]
        }
        defer { server.stop() }
        let idle = Duration.seconds(1)
        let failed = await expectTimeout(.idle) {
            try await CurlTransport().send(server.url(), options: self.options(idle: idle))
        }
        // Not before the idle timeout has passed since the last byte (give or take the moment
        // between the byte's arrival and the server's noting it).
        let lastSent = try #require(server.lastSent)
        #expect(failed - lastSent >= idle - .milliseconds(50), "failed \(failed - lastSent) after the last byte")
    }

    @Test func aSilentServerIsCutByTheIdleTimeout() async throws {
        let server = try PacedServer { _ in [.holdUntilClosed] }
        defer { server.stop() }
        let clock = ContinuousClock()
        let started = clock.now
        await expectTimeout(.idle) {
            try await CurlTransport().send(server.url(), options: self.options(idle: .milliseconds(800)))
        }
        #expect(clock.now - started >= .milliseconds(800))
    }

    // MARK: Which timeout fired, over HTTP/1.1

    @Test func aTotalTimeoutOnAReusedConnectionIsReportedAsTotal() async throws {
        let server = try PacedServer { index in index == 0 ? [.send(Self.response)] : [.holdUntilClosed] }
        defer { server.stop() }
        let transport = CurlTransport()
        let first = try await transport.send(server.url(), options: options())
        #expect(first.status == 200)
        await expectTimeout(.total) {
            try await transport.send(server.url(), options: self.options(total: .milliseconds(600)))
        }
        #expect(server.connections == 1, "the second request came on a connection of its own")
        #expect(server.requests == 2)
    }

    @Test func anIdleTimeoutOnAReusedConnectionIsReportedAsIdle() async throws {
        let server = try PacedServer { index in index == 0 ? [.send(Self.response)] : [.holdUntilClosed] }
        defer { server.stop() }
        let transport = CurlTransport()
        _ = try await transport.send(server.url(), options: options())
        await expectTimeout(.idle) {
            try await transport.send(
                server.url(), options: self.options(idle: .milliseconds(600), total: .seconds(20)))
        }
        #expect(server.connections == 1, "the second request came on a connection of its own")
    }

    @Test func aTotalTimeoutOnANewConnectionIsReportedAsTotal() async throws {
        let server = try PacedServer { _ in [.holdUntilClosed] }
        defer { server.stop() }
        await expectTimeout(.total) {
            try await CurlTransport().send(server.url(), options: self.options(total: .milliseconds(600)))
        }
        #expect(server.requests == 1)
    }

    @Test func aConnectTimeoutIsReportedAsConnectWhenATotalTimeoutIsSetToo() async throws {
        let listener = try BacklogFullListener()
        defer { listener.close() }
        let url = URL(string: "http://127.0.0.1:\(listener.port)/")!
        await expectTimeout(.connect) {
            try await CurlTransport().send(
                url, options: self.options(total: .seconds(20), connect: .milliseconds(400)))
        }
    }

    @Test func aTotalTimeoutThatFiresWhileConnectingIsReportedAsTotal() async throws {
        let listener = try BacklogFullListener()
        defer { listener.close() }
        let url = URL(string: "http://127.0.0.1:\(listener.port)/")!
        await expectTimeout(.total) {
            try await CurlTransport().send(
                url, options: self.options(total: .milliseconds(400), connect: .seconds(20)))
        }
    }

    @Test func aTLSHandshakeThatNeverEndsIsAConnectTimeout() async throws {
        // The server accepts the connection and never answers the client's hello: the connection
        // is not made until the handshake is done.
        let server = try PacedServer { _ in [] }
        defer { server.stop() }
        let url = server.url(scheme: "https")
        let transport = CurlTransport()
        await expectTimeout(.connect) {
            try await transport.send(url, options: self.options(connect: .milliseconds(500)))
        }
        await expectTimeout(.connect) {
            try await transport.send(url, options: self.options(total: .seconds(20), connect: .milliseconds(500)))
        }
    }
}

/// Which timeout fired, over HTTP/2: nginx over TLS passes `/upstream/` on to a server that never
/// answers, on the connection the transport already holds to it.
@Suite(
    "Timeouts over HTTP/2", .enabled(if: TLSNginx.isAvailable, "needs nginx and openssl (make deps)"))
struct HTTP2TimeoutTests {
    private func options(_ nginx: TLSNginx, idle: Duration = .seconds(30), total: Duration? = nil) -> RequestOptions {
        var options = nginx.trustingOptions()
        options.idleTimeout = idle
        options.timeout = total
        return options
    }

    /// Runs `body` with nginx in front of a server that never answers, and a transport whose HTTP/2
    /// connection to nginx is made (`connection`: nginx's serial number for it).
    private func withSilentUpstream(
        _ body: (TLSNginx, CurlTransport, _ connection: String) async throws -> Void
    ) async throws {
        let upstream = try PacedServer { _ in [.holdUntilClosed] }
        defer { upstream.stop() }
        let nginx = try await TLSNginx.start(upstreamPort: upstream.port)
        defer { nginx.stop() }
        let transport = CurlTransport()
        let connection = try await self.connection(transport, nginx)
        try await body(nginx, transport, connection)
        // The failed transfer left the connection in place: the next request comes on it too.
        #expect(try await self.connection(transport, nginx) == connection)
        #expect(upstream.requests >= 1)
    }

    /// The serial number of the connection a request to `/protocol` came on, which is HTTP/2's.
    private func connection(_ transport: CurlTransport, _ nginx: TLSNginx) async throws -> String {
        let response = try await transport.send(nginx.url("/protocol"), options: options(nginx))
        let parts = String(decoding: response.body, as: UTF8.self).split(separator: " ")
        #expect(parts.first == "HTTP/2.0")
        return parts.count > 1 ? String(parts[1]) : ""
    }

    @Test func aTotalTimeoutOnAReusedConnectionIsReportedAsTotal() async throws {
        try await withSilentUpstream { nginx, transport, _ in
            let error = await expectFailure(.timedOut) {
                try await transport.send(
                    nginx.url("/upstream/x"), options: self.options(nginx, total: .milliseconds(800)))
            }
            #expect(error?.timeout == .total, "\(String(describing: error))")
        }
    }

    @Test func anIdleTimeoutOnAReusedConnectionIsReportedAsIdle() async throws {
        try await withSilentUpstream { nginx, transport, _ in
            let error = await expectFailure(.timedOut) {
                try await transport.send(
                    nginx.url("/upstream/x"), options: self.options(nginx, idle: .milliseconds(800)))
            }
            #expect(error?.timeout == .idle, "\(String(describing: error))")
        }
    }

    @Test func aTotalTimeoutOnANewConnectionIsReportedAsTotal() async throws {
        let upstream = try PacedServer { _ in [.holdUntilClosed] }
        defer { upstream.stop() }
        let nginx = try await TLSNginx.start(upstreamPort: upstream.port)
        defer { nginx.stop() }
        let error = await expectFailure(.timedOut) {
            try await CurlTransport().send(
                nginx.url("/upstream/x"), options: self.options(nginx, total: .milliseconds(800)))
        }
        #expect(error?.timeout == .total, "\(String(describing: error))")
    }
}
