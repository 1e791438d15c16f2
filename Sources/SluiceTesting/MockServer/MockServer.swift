import Foundation
internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix
internal import NIOSSL
import Synchronization

/// A real HTTP/1.1 server on loopback, for tests: scripted replies, injected faults, recorded requests.
///
/// ```swift
/// let server = try await MockServer.start()
/// let url = server.url(for: .bytes(1024))           // http://127.0.0.1:PORT/bytes/1024
/// server.script("users/42", .json(#"{"id":42}"#))    // then serves that path
/// server.recordedRequests                           // everything it received
/// try await server.shutdown()                       // awaited, also when a test fails
/// ```
///
/// Each server runs on its own event-loop thread and port, so a test can start several (for
/// cross-origin cases). Started with a `MockServerTLS`, it serves `https://` URLs over TLS, faults
/// and wire scripts included. Connections are persistent (HTTP/1.1 keep-alive, `Connection: close`
/// honoured), request bodies of any size stream in, and `Expect: 100-continue` is answered.
public final class MockServer: Sendable {
    /// Request bodies up to this many bytes (256 MiB) are kept in `RecordedRequest.body`; longer ones only by length and checksum.
    public static let recordedBodyLimit = 256 << 20
    /// `EchoReply` carries request bodies up to this many bytes (16 MiB); longer ones only by length and checksum.
    public static let echoedBodyLimit = 16 << 20

    /// The address the server listens on.
    public let host: String
    /// The port the server listens on (chosen by the system when started with port 0).
    public let port: Int
    /// `http://HOST:PORT/` (`https://` with TLS), the base of every route's URL; for a server on a
    /// Unix domain socket `http://localhost/`.
    public let baseURL: URL
    /// The path of the Unix domain socket the server listens on, nil for TCP (see
    /// `start(unixSocketPath:tls:)`).
    public let unixSocketPath: String?

    let state: MockServerState
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let isShutDown = Mutex(false)

    private init(
        host: String, port: Int, unixSocketPath: String? = nil, isTLS: Bool, state: MockServerState,
        group: MultiThreadedEventLoopGroup, channel: any Channel
    ) {
        self.host = host
        self.port = port
        self.unixSocketPath = unixSocketPath
        self.state = state
        self.group = group
        self.channel = channel
        let authority: String
        if unixSocketPath != nil {
            authority = host
        } else {
            authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }
        self.baseURL = URL(string: "\(isTLS ? "https" : "http")://\(authority)/")!
    }

    /// Starts a server listening on `host` and `port` (0 picks a free port), speaking TLS when
    /// `tls` is given; `shutdown()` stops it.
    public static func start(host: String = "127.0.0.1", port: Int = 0, tls: MockServerTLS? = nil) async throws
        -> MockServer
    {
        let tlsContext = try tls?.makeContext()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let state = MockServerState()
        let bootstrap = makeBootstrap(group: group, state: state, tlsContext: tlsContext)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
        do {
            let channel = try await bootstrap.bind(host: host, port: port).get()
            guard let boundPort = channel.localAddress?.port else {
                throw MockServerError.noLocalAddress
            }
            return MockServer(
                host: host, port: boundPort, isTLS: tls != nil, state: state, group: group, channel: channel)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Starts a server listening on the Unix domain socket `path` (a file there is replaced), as
    /// the Docker Engine does: its `baseURL` is `http://localhost/` (`https://` with TLS), for a
    /// client that connects to `path` (`RequestOptions.unixSocketPath`); `port` is 0.
    public static func start(unixSocketPath path: String, tls: MockServerTLS? = nil) async throws -> MockServer {
        let tlsContext = try tls?.makeContext()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let state = MockServerState()
        // No TCP options: a Unix socket refuses them.
        let bootstrap = makeBootstrap(group: group, state: state, tlsContext: tlsContext)
        do {
            let channel = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get()
            return MockServer(
                host: "localhost", port: 0, unixSocketPath: path, isTLS: tls != nil, state: state, group: group,
                channel: channel)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// The listening side every server shares: each connection gets the HTTP pipeline and a
    /// `MockConnectionHandler`, behind TLS when there is a context.
    private static func makeBootstrap(
        group: MultiThreadedEventLoopGroup, state: MockServerState, tlsContext: NIOSSLContext?
    ) -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelOption(
                ChannelOptions.writeBufferWaterMark,
                value: ChannelOptions.Types.WriteBufferWaterMark(low: 256 << 10, high: 1 << 20)
            )
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = MockConnectionHandler(
                        state: state, connectionID: state.connectionOpened(),
                        remotePort: channel.remoteAddress?.port ?? 0)
                    let pipeline = channel.pipeline.syncOperations
                    if let tlsContext { try pipeline.addHandler(NIOSSLServerHandler(context: tlsContext)) }
                    try pipeline.configureHTTPServerPipeline(
                        withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false)
                    try pipeline.addHandler(handler)
                }
            }
    }

    /// Stops listening, closes every connection and ends the server's thread; calling it again does nothing.
    public func shutdown() async throws {
        let first = isShutDown.withLock { isShutDown in
            defer { isShutDown = true }
            return !isShutDown
        }
        guard first else { return }
        try? await channel.close()
        // Closing leaves the socket's file behind.
        if let unixSocketPath { try? FileManager.default.removeItem(atPath: unixSocketPath) }
        try await group.shutdownGracefully()
    }

    deinit {
        // A forgotten server still stops: without blocking, whichever thread drops it.
        let first = isShutDown.withLock { isShutDown in
            defer { isShutDown = true }
            return !isShutDown
        }
        if first { group.shutdownGracefully { _ in } }
    }

    // MARK: Recording

    /// Every request received since start (or `resetRecords()`), in arrival order.
    public var recordedRequests: [RecordedRequest] { state.records }

    /// The recorded requests whose path (without query) is `path`; a missing leading `/` is added.
    public func requests(to path: String) -> [RecordedRequest] {
        let wanted = ScriptBook.normalize(path)
        return state.records.filter { $0.path == wanted || RoutePercentEncoding.decode(Substring($0.path)) == wanted }
    }

    /// The recorded requests to `endpoint`'s path (its query is ignored).
    public func requests(to endpoint: Endpoint) -> [RecordedRequest] {
        let path = endpoint.target.path
        return state.records.filter { $0.path == path }
    }

    /// Forgets the recorded requests and resets `connectionCount` to zero.
    public func resetRecords() { state.resetRecords() }

    /// How many TCP connections the server accepted since start (or `resetRecords()`).
    public var connectionCount: Int { state.connectionCount }
}

/// Why `MockServer.start` failed, besides the system's own errors.
public enum MockServerError: Error, Sendable {
    /// The listening socket reported no local address.
    case noLocalAddress
}
