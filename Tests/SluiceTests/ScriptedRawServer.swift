import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking HTTP/1.1 server on 127.0.0.1 for the cases MockServer cannot script: answering
/// before a request's body was read, or stopping to listen between two requests. Each connection
/// is served on its own thread; a closure sees each request's index and head (lower-cased) and
/// says what to do.
final class ScriptedRawServer: ThreadedLoopbackServer, @unchecked Sendable {
    enum Action {
        /// Writes these bytes, keeps the connection.
        case respond(String)
        /// Writes these bytes before reading the body (the head is all that was read), keeps it.
        case respondBeforeBody(String)
        /// Stops listening (new connections are refused), then closes this connection unanswered.
        case stopListeningAndDrop
    }

    struct Seen: Sendable {
        var head: String
        var body: Data
    }

    private let seenRequests = Mutex<[Seen]>([])
    private let handler: @Sendable (Int, String) -> Action

    var requests: [Seen] { seenRequests.withLock { $0 } }

    init(handler: @escaping @Sendable (_ index: Int, _ lowercasedHead: String) -> Action) throws {
        self.handler = handler
        try super.init()
    }

    func url(_ path: String = "/x") -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    override func serve(_ connection: Int32) {
        var buffer = [UInt8]()
        func readMore() -> Bool {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(connection, &chunk, chunk.count, 0)
            if count <= 0 { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
        func write(_ text: String) {
            let bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes {
                    send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if sent <= 0 { return }
                offset += sent
            }
        }
        while true {
            var headEnd: Int?
            while headEnd == nil {
                if let range = Data(buffer).range(of: Data("\r\n\r\n".utf8)) {
                    headEnd = range.upperBound
                } else if !readMore() {
                    return
                }
            }
            let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self).lowercased()
            buffer.removeFirst(headEnd!)
            var contentLength = 0
            for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                contentLength = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
            }
            let index = seenRequests.withLock { $0.count }
            let action = handler(index, head)
            if case .respondBeforeBody(let text) = action {
                seenRequests.withLock { $0.append(Seen(head: head, body: Data())) }
                write(text)
                // libcurl sends no body after a final answer to Expect: 100-continue.
                continue
            }
            while buffer.count < contentLength {
                if !readMore() { return }
            }
            let body = Data(buffer[0..<contentLength])
            buffer.removeFirst(contentLength)
            seenRequests.withLock { $0.append(Seen(head: head, body: body)) }
            switch action {
            case .respond(let text): write(text)
            case .respondBeforeBody: break
            case .stopListeningAndDrop:
                stop()
                return
            }
        }
    }
}
