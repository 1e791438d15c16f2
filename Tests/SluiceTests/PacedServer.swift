import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking HTTP/1.1 server on 127.0.0.1 that answers at its own pace, for the timeout tests: it
/// sends a response in pieces with pauses between them, a byte at a time, or not at all. Each
/// connection is served on its own thread; `script` says, for each request (numbered from 0 across
/// connections), what to do. Requests are read as far as the end of their head (the tests send
/// no bodies); anything that never ends a head, such as a TLS handshake, is never answered.
final class PacedServer: ThreadedLoopbackServer, @unchecked Sendable {
    enum Step: Sendable {
        /// Writes these bytes.
        case send(String)
        /// Writes these bytes one at a time, pausing `interval` before each.
        case drip(String, interval: Duration)
        /// Says nothing more on this connection until the client closes it.
        case holdUntilClosed
    }

    private struct State {
        var connections = 0
        var requests = 0
        var lastSent: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let script: @Sendable (_ index: Int) -> [Step]

    /// How many connections the server accepted, and requests it read.
    var connections: Int { state.withLock { $0.connections } }
    var requests: Int { state.withLock { $0.requests } }
    /// When the server last wrote a byte.
    var lastSent: ContinuousClock.Instant? { state.withLock { $0.lastSent } }

    init(script: @escaping @Sendable (_ index: Int) -> [Step]) throws {
        self.script = script
        try super.init()
    }

    func url(_ path: String = "/x", scheme: String = "http") -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")!
    }

    override func serve(_ connection: Int32) {
        state.withLock { $0.connections += 1 }
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        let end = Array("\r\n\r\n".utf8)
        while true {
            while !Self.contains(end, in: buffer) {
                let count = recv(connection, &chunk, chunk.count, 0)
                if count <= 0 { return }
                buffer.append(contentsOf: chunk[0..<count])
            }
            let headEnd = Self.indexAfter(end, in: buffer)
            buffer.removeFirst(headEnd)
            let index = state.withLock { state in
                defer { state.requests += 1 }
                return state.requests
            }
            for step in script(index) {
                switch step {
                case .send(let text):
                    guard write(Array(text.utf8), to: connection) else { return }
                case .drip(let text, let interval):
                    for byte in text.utf8 {
                        usleep(UInt32(interval / .microseconds(1)))
                        guard write([byte], to: connection) else { return }
                    }
                case .holdUntilClosed:
                    while recv(connection, &chunk, chunk.count, 0) > 0 {}
                    return
                }
            }
        }
    }

    private func write(_ bytes: [UInt8], to connection: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return false }
            offset += sent
        }
        state.withLock { $0.lastSent = .now }
        return true
    }

    private static func contains(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        indexAfter(needle, in: haystack) > 0
    }

    /// The index just past the first occurrence of `needle`, or 0.
    private static func indexAfter(_ needle: [UInt8], in haystack: [UInt8]) -> Int {
        guard haystack.count >= needle.count else { return 0 }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<start + needle.count]) == needle {
            return start + needle.count
        }
        return 0
    }
}
