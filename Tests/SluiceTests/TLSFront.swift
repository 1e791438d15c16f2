import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// TLS in front of a plain loopback server: accepts TLS connections on 127.0.0.1 with a test
/// certificate and relays what they carry, decrypted, to `upstreamPort`. Put in front of a
/// `ConnectProxy`, it makes an HTTPS proxy (TLS to the proxy itself).
final class TLSFront: Sendable {
    /// The port it listens on.
    let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let connections = Atomic<Int>(0)

    /// How many connections carried data, past their TLS handshake.
    var handshakeCount: Int { connections.load(ordering: .relaxed) }

    private init(port: Int, group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.port = port
        self.group = group
        self.channel = channel
    }

    /// A front on `host` (a loopback address) for `upstreamPort` on 127.0.0.1, with
    /// `certificateChain` and `privateKey` (PEM).
    static func start(
        host: String = "127.0.0.1", upstreamPort: Int, certificateChain: Data, privateKey: Data
    ) async throws -> TLSFront {
        let certificates = try NIOSSLCertificate.fromPEMBytes(Array(certificateChain))
        let key = try NIOSSLPrivateKey(bytes: Array(privateKey), format: .pem)
        let context = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key)))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let counter = HandshakeCounter()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(NIOSSLServerHandler(context: context))
                    try pipeline.addHandler(FrontHandler(upstreamPort: upstreamPort, counter: counter))
                }
            }
            .bind(host: host, port: 0).get()
        let front = TLSFront(port: channel.localAddress?.port ?? 0, group: group, channel: channel)
        counter.front.withLock { $0 = front }
        return front
    }

    /// Stops listening and ends the front's thread.
    func shutdown() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    fileprivate func countHandshake() { connections.add(1, ordering: .relaxed) }
}

/// Reaches the front from its connections' handlers, which are made before the front exists.
private final class HandshakeCounter: Sendable {
    let front = Mutex<TLSFront?>(nil)
}

/// The TLS side of a connection: opens the plain connection upstream and writes to it what
/// arrives, decrypted.
private final class FrontHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let upstreamPort: Int
    private let counter: HandshakeCounter
    private var upstream: (any Channel)?
    private var pending: [ByteBuffer] = []
    private var hasRead = false

    init(upstreamPort: Int, counter: HandshakeCounter) {
        self.upstreamPort = upstreamPort
        self.counter = counter
    }

    func channelActive(context: ChannelHandlerContext) {
        let front = context.channel
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        ClientBootstrap(group: context.eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(BackHandler(front: front))
                }
            }
            .connect(host: "127.0.0.1", port: upstreamPort)
            .whenComplete { result in
                switch result {
                case .success(let channel):
                    handler.value.upstream = channel
                    for buffer in handler.value.pending { channel.write(buffer, promise: nil) }
                    channel.flush()
                    handler.value.pending = []
                case .failure:
                    front.close(promise: nil)
                }
            }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Decrypted data: the handshake is done.
        if !hasRead {
            hasRead = true
            counter.front.withLock { $0?.countHandshake() }
        }
        let buffer = unwrapInboundIn(data)
        if let upstream {
            upstream.writeAndFlush(buffer, promise: nil)
        } else {
            pending.append(buffer)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        upstream?.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A client that gives up on the handshake (it does not trust the certificate) ends here.
        context.close(promise: nil)
    }
}

/// The plain side of a connection: writes back to the TLS side what the upstream server sends.
private final class BackHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let front: any Channel

    init(front: any Channel) { self.front = front }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        front.writeAndFlush(unwrapInboundIn(data), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        front.close(promise: nil)
        context.fireChannelInactive()
    }
}
