import Foundation
internal import NIOCore

/// Plays `WireStep`s: bytes written below the HTTP encoder (so through TLS when the server has it),
/// pauses and abrupt ends, all on the connection's event loop.
extension MockConnectionHandler {
    func play(_ steps: ArraySlice<WireStep>, context: ChannelHandlerContext) {
        guard let step = steps.first else {
            // The script wrote a whole reply: serve the next request on this connection.
            isResponding = false
            respondToNext(context: context)
            return
        }
        let rest = steps.dropFirst()
        switch step {
        case .send(let bytes):
            _ = writeRaw(ByteBuffer(bytes: bytes), context: context)
            play(rest, context: context)
        case .trickle(let bytes, let interval):
            guard let first = bytes.first else {
                play(rest, context: context)
                return
            }
            _ = writeRaw(ByteBuffer(bytes: [first]), context: context)
            let remaining = bytes.dropFirst()
            if remaining.isEmpty {
                play(rest, context: context)
            } else {
                schedule(after: interval, context: context) {
                    self.play([.trickle(Data(remaining), every: interval)] + rest, context: context)
                }
            }
        case .pause(let delay):
            schedule(after: delay, context: context) { self.play(rest, context: context) }
        case .close:
            isClosing = true
            writeRaw(ByteBuffer(), context: context).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        case .closeWithoutNotify:
            isClosing = true
            writeRaw(ByteBuffer(), context: context).assumeIsolated().whenComplete { _ in
                self.belowTLS(context).close(promise: nil)
            }
        case .reset:
            reset(context: context)
        case .stall:
            isNeverResponding = true
        }
    }
}
