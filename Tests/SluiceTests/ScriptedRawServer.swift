import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking HTTP/1.1 server on 127.0.0.1 for the cases MockServer cannot script: answering
/// before a request's body was read, or stopping to listen between two requests. Each connection
/// is served on its own thread; a closure sees each request's index and head (lower-cased) and
/// says what to do.
final class ScriptedRawServer: @unchecked Sendable {
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

    let port: Int
    private let listener: Int32
    private let seenRequests = Mutex<[Seen]>([])
    private let listening = Atomic<Bool>(true)
    private let handler: @Sendable (Int, String) -> Action

    var requests: [Seen] { seenRequests.withLock { $0 } }

    init(handler: @escaping @Sendable (_ index: Int, _ lowercasedHead: String) -> Action) throws {
        self.handler = handler
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        listen(listener, 16)
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: actual.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    func url(_ path: String = "/x") -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    func stop() {
        if listening.exchange(false, ordering: .relaxed) {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 { return }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        var buffer = [UInt8]()
        defer { close(connection) }
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
