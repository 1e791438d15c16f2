import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP proxy on 127.0.0.1 that only tunnels: it answers `CONNECT host:port` with a 200 that
/// carries a header of its own (`Proxy-Agent`), connects to that port on 127.0.0.1, then copies bytes
/// both ways until either side closes. Each tunnel runs on its own thread.
final class ConnectProxy: ThreadedLoopbackServer, @unchecked Sendable {
    private let connects = Atomic<Int>(0)

    /// How many tunnels were asked for.
    var connectCount: Int { connects.load(ordering: .relaxed) }

    /// The proxy's URL, for `RequestOptions.proxy`.
    var url: String { "http://127.0.0.1:\(port)" }

    override func serve(_ client: Int32) {
        tunnel(client)
    }

    private func tunnel(_ client: Int32) {
        // The CONNECT request's head, read a byte at a time so nothing after it is consumed.
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) {
            guard recv(client, &byte, 1, 0) == 1 else { return }
            head.append(byte)
        }
        let requestLine = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[0] == "CONNECT",
            let targetPort = parts[1].split(separator: ":").last.flatMap({ Int($0) })
        else { return }
        connects.add(1, ordering: .relaxed)
        guard let server = LoopbackSocket.connect(to: targetPort) else { return }
        defer { close(server) }
        let answer = Array("HTTP/1.1 200 Connection established\r\nProxy-Agent: sluice-tests\r\n\r\n".utf8)
        guard send(client, answer, answer.count, Int32(MSG_NOSIGNAL)) == answer.count else { return }
        relay(client, server)
    }

    /// Copies bytes both ways until either side closes or fails.
    private func relay(_ a: Int32, _ b: Int32) {
        var descriptors = [
            pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while poll(&descriptors, 2, 10_000) > 0 {
            for index in 0..<2 where descriptors[index].revents != 0 {
                let from = descriptors[index].fd
                let to = descriptors[1 - index].fd
                let count = recv(from, &buffer, buffer.count, 0)
                if count <= 0 { return }
                var offset = 0
                while offset < count {
                    let sent = buffer[offset..<count].withUnsafeBytes {
                        send(to, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                    }
                    if sent <= 0 { return }
                    offset += sent
                }
            }
        }
    }
}
