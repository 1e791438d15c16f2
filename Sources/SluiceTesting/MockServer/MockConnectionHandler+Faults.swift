import Foundation
internal import NIOCore
internal import NIOHTTP1
internal import NIOSSL

/// Carries out `Fault`s: replies that break HTTP or TCP on purpose.
extension MockConnectionHandler {
    func perform(_ fault: Fault, for pending: Pending, context: ChannelHandlerContext) {
        let octetStream = ("Content-Type", "application/octet-stream")
        switch fault {
        case .closeBeforeHeaders:
            closeNow(context: context)
        case .closeAfterHeaders:
            isClosing = true
            writeHead(
                status: 200, headers: [octetStream, ("Content-Length", "\(Fault.announcedLength)")], for: pending,
                context: context)
            closeAfterFlush(context: context)
        case .shortBody:
            isClosing = true
            writeHead(
                status: 200, headers: [octetStream, ("Content-Length", "\(Fault.announcedLength)")], for: pending,
                context: context)
            let half = DeterministicBytes.buffer(offset: 0, length: Fault.announcedLength / 2)
            context.write(wrapOutboundOut(.body(.byteBuffer(half))), promise: nil)
            closeAfterFlush(context: context)
        case .resetMidBody:
            writeHead(
                status: 200, headers: [octetStream, ("Content-Length", "\(Fault.resetAnnouncedLength)")], for: pending,
                context: context)
            let part = DeterministicBytes.buffer(offset: 0, length: Fault.resetSentLength)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(part))), promise: nil)
            // Give the client a moment to read what was sent, then reset instead of closing cleanly.
            schedule(after: .milliseconds(20), context: context) { self.reset(context: context) }
        case .malformedStatusLine:
            isClosing = true
            let reply = "HTTP/1.1 2OO OK\r\nContent-Length: 2\r\n\r\nok"
            writeRaw(ByteBuffer(string: reply), context: context).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        case .hugeHeaders(let bytes):
            send(
                Reply.text("ok", headers: Self.fillerHeaders(bytes: bytes)), for: pending, context: context)
        case .endlessBody:
            send(
                Reply(
                    status: 200, headers: [octetStream],
                    body: .deterministic(offset: 0, count: nil, writeSize: DeterministicBytes.blockLength)),
                for: pending, context: context)
        case .neverRespond:
            isNeverResponding = true
        }
    }

    /// `X-Filler-N` fields of up to 4 KiB each, adding up to about `bytes` bytes on the wire.
    static func fillerHeaders(bytes: Int) -> [(String, String)] {
        var fields: [(String, String)] = []
        var remaining = bytes
        while remaining > 0 {
            let name = "X-Filler-\(fields.count + 1)"
            let overhead = name.utf8.count + 4  // ": " and CRLF
            let valueLength = max(1, min(4096 - overhead, remaining - overhead))
            fields.append((name, String(repeating: "a", count: valueLength)))
            remaining -= overhead + valueLength
        }
        return fields
    }

    func closeAfterFlush(context: ChannelHandlerContext) {
        let flushed = context.eventLoop.makePromise(of: Void.self)
        context.flush()
        // An empty write completes once everything before it has been handed to the kernel.
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer()))), promise: flushed)
        flushed.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// Closes with `SO_LINGER` 0, so the kernel sends RST instead of FIN (and, over TLS, no close_notify).
    func reset(context: ChannelHandlerContext) {
        isClosing = true
        guard let socket = context.channel as? SocketOptionProvider else {
            context.close(promise: nil)
            return
        }
        socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
            self.belowTLS(context).close(promise: nil)
        }
    }

    /// The context whose `close` reaches the socket without passing the TLS handler (which would
    /// send close_notify first): the TLS handler's own, or `context` on a plain connection.
    func belowTLS(_ context: ChannelHandlerContext) -> ChannelHandlerContext {
        (try? context.pipeline.syncOperations.context(handlerType: NIOSSLServerHandler.self)) ?? context
    }
}
