import Foundation
internal import NIOCore
internal import NIOHTTP1

/// Serves one TCP connection of a `MockServer`: collects requests, records them, asks the router
/// what to do and writes the replies, one request at a time and in order (pipelined requests wait).
///
/// Lives on the connection's event loop; every callback it schedules runs there too.
final class MockConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// A request that has fully arrived and waits for (or is getting) its reply.
    struct Pending {
        let record: RecordedRequest
        let version: HTTPVersion
        let keepAlive: Bool
        var isHead: Bool { record.method == "HEAD" }
    }

    /// A deterministic body being written as fast as the client reads it.
    private struct OutgoingStream {
        let pending: Pending
        var offset: Int
        var remaining: Int?
        let writeSize: Int
    }

    private let state: MockServerState
    private let connectionID: Int
    private let remotePort: Int

    private var incoming: IncomingRequest?
    private var incomingVersion = HTTPVersion.http1_1
    private var queue: [Pending] = []
    var isResponding = false
    private var stream: OutgoingStream?
    /// The current request is answered by `Fault.neverRespond`.
    var isNeverResponding = false
    /// The client sent its FIN (the channel allows half-closure).
    private var isInputClosed = false
    /// A close is under way: nothing more is read or written.
    var isClosing = false
    private var isActive = true

    init(state: MockServerState, connectionID: Int, remotePort: Int) {
        self.state = state
        self.connectionID = connectionID
        self.remotePort = remotePort
    }

    // MARK: Reading requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isClosing else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            incomingVersion = head.version
            incoming = IncomingRequest(
                method: head.method.rawValue, target: head.uri,
                httpVersion: "HTTP/\(head.version.major).\(head.version.minor)",
                headers: head.headers.map { ($0.name, $0.value) }, keepAlive: head.isKeepAlive)
            let expectsContinue = head.headers["Expect"].contains { $0.lowercased() == "100-continue" }
            if expectsContinue && !isResponding && head.version != .http1_0 {
                let interim = HTTPResponseHead(version: head.version, status: .continue)
                context.writeAndFlush(wrapOutboundOut(.head(interim)), promise: nil)
            }
        case .body(let buffer):
            buffer.withUnsafeReadableBytes { incoming?.append($0, limit: MockServer.recordedBodyLimit) }
        case .end:
            guard let request = incoming else { return }
            incoming = nil
            let record = state.record(request, connectionID: connectionID, remotePort: remotePort)
            queue.append(Pending(record: record, version: incomingVersion, keepAlive: request.keepAlive))
            respondToNext(context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            isInputClosed = true
            // A client that stopped sending while we never answer has given up on us.
            if isNeverResponding || (!isResponding && queue.isEmpty) { closeNow(context: context) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        isActive = false
        stream = nil
        queue.removeAll()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if error is HTTPParserError, !isResponding, isActive, !isClosing {
            isClosing = true
            let reply = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            writeRaw(ByteBuffer(string: reply), context: context).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        } else {
            closeNow(context: context)
        }
    }

    // MARK: Replying

    func respondToNext(context: ChannelHandlerContext) {
        guard isActive, !isClosing, !isResponding else { return }
        guard !queue.isEmpty else {
            if isInputClosed { closeNow(context: context) }
            return
        }
        let pending = queue.removeFirst()
        isResponding = true
        switch MockRouter.plan(for: pending.record, state: state) {
        case .reply(let reply):
            if let delay = reply.delay {
                schedule(after: delay, context: context) { self.send(reply, for: pending, context: context) }
            } else {
                send(reply, for: pending, context: context)
            }
        case .gzip(let content, let headers):
            // Compressing a large body takes seconds: do it off the event loop, once per size.
            let promise = context.eventLoop.makePromise(of: ByteBuffer.self)
            DispatchQueue.global().async { promise.succeed(GzipBodies.body(for: content)) }
            promise.futureResult.assumeIsolated().whenSuccess { body in
                guard self.isActive else { return }
                self.send(
                    .buffer(status: 200, contentType: nil, body, headers: headers), for: pending, context: context)
            }
        case .fault(let fault):
            perform(fault, for: pending, context: context)
        case .wire(let steps):
            play(steps[...], context: context)
        }
    }

    /// Writes the head, then the body as `reply.body` says; `finish` follows once the body is out.
    func send(_ reply: Reply, for pending: Pending, context: ChannelHandlerContext) {
        writeHead(status: reply.status, headers: reply.headers, for: pending, context: context)
        if pending.isHead {
            finish(pending, context: context)
            return
        }
        switch reply.body {
        case .empty:
            finish(pending, context: context)
        case .buffer(let buffer):
            if buffer.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil) }
            finish(pending, context: context)
        case .chunks(let buffers):
            for buffer in buffers { context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil) }
            finish(pending, context: context)
        case .deterministic(let offset, let count, let writeSize):
            stream = OutgoingStream(pending: pending, offset: offset, remaining: count, writeSize: writeSize)
            pump(context: context)
        case .drip(let count, let chunks, let interval):
            context.flush()
            drip(count: count, chunks: chunks, interval: interval, index: 0, offset: 0, for: pending, context: context)
        case .paced(let buffers, let interval):
            context.flush()
            pace(buffers[...], interval: interval, for: pending, context: context)
        }
    }

    func writeHead(status: Int, headers: [(String, String)], for pending: Pending, context: ChannelHandlerContext) {
        var fields = NIOHTTP1.HTTPHeaders(headers)
        if !pending.keepAlive && !fields.contains(name: "Connection") { fields.add(name: "Connection", value: "close") }
        let head = HTTPResponseHead(
            version: pending.version, status: HTTPResponseStatus(statusCode: status), headers: fields)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
    }

    /// Writes stream chunks while the channel is writable; `channelWritabilityChanged` resumes it.
    private func pump(context: ChannelHandlerContext) {
        guard var current = stream, isActive else { return }
        while context.channel.isWritable {
            if current.remaining == 0 {
                stream = nil
                finish(current.pending, context: context)
                return
            }
            let length = min(current.writeSize, current.remaining ?? current.writeSize)
            let chunk = DeterministicBytes.buffer(offset: current.offset, length: length)
            context.write(wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
            current.offset += length
            current.remaining? -= length
        }
        stream = current
        context.flush()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { pump(context: context) }
        context.fireChannelWritabilityChanged()
    }

    private func drip(
        count: Int, chunks: Int, interval: Duration, index: Int, offset: Int, for pending: Pending,
        context: ChannelHandlerContext
    ) {
        schedule(after: interval, context: context) {
            let length = count / chunks + (index < count % chunks ? 1 : 0)
            if length > 0 {
                let chunk = DeterministicBytes.buffer(offset: offset, length: length)
                context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
            }
            if index + 1 >= chunks {
                self.finish(pending, context: context)
            } else {
                self.drip(
                    count: count, chunks: chunks, interval: interval, index: index + 1, offset: offset + length,
                    for: pending, context: context)
            }
        }
    }

    private func pace(
        _ buffers: ArraySlice<ByteBuffer>, interval: Duration, for pending: Pending, context: ChannelHandlerContext
    ) {
        guard let next = buffers.first else { return finish(pending, context: context) }
        schedule(after: interval, context: context) {
            context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(next))), promise: nil)
            self.pace(buffers.dropFirst(), interval: interval, for: pending, context: context)
        }
    }

    /// Ends the reply, then serves the next request or closes the connection.
    func finish(_ pending: Pending, context: ChannelHandlerContext) {
        isResponding = false
        let end = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if pending.keepAlive && !(isInputClosed && queue.isEmpty) {
            respondToNext(context: context)
        } else {
            isClosing = true
            queue.removeAll()
            end.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    // MARK: Helpers

    /// Runs `work` on the event loop after `delay`, unless the connection has gone by then.
    func schedule(after delay: Duration, context: ChannelHandlerContext, _ work: @escaping () -> Void) {
        _ = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) { [self] in
            guard isActive, !isClosing else { return }
            work()
        }
    }

    /// Writes bytes below the HTTP encoder, for replies that are not valid HTTP.
    func writeRaw(_ bytes: ByteBuffer, context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        guard let encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self) else {
            return context.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
        }
        return encoder.writeAndFlush(NIOAny(bytes))
    }

    func closeNow(context: ChannelHandlerContext) {
        isClosing = true
        stream = nil
        context.close(promise: nil)
    }
}
