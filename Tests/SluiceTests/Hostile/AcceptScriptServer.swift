import Foundation
import SluiceTesting

#if canImport(Glibc)
    import Glibc
#endif

/// A raw listener on 127.0.0.1 that plays `WireStep`s on each connection as soon as it is
/// accepted, reading nothing: for the phases before HTTP (a TLS handshake that breaks or never
/// comes) and for a server that never reads what it is sent.
final class AcceptScriptServer: ThreadedLoopbackServer, @unchecked Sendable {
    private let steps: [WireStep]

    init(_ steps: [WireStep]) throws {
        self.steps = steps
        try super.init()
    }

    override func serve(_ connection: Int32) {
        for step in steps {
            switch step {
            case .send(let bytes):
                guard write(bytes, to: connection) else { return }
            case .trickle(let bytes, let interval):
                for byte in bytes {
                    guard write(Data([byte]), to: connection) else { return }
                    Thread.sleep(forTimeInterval: interval.seconds)
                }
            case .pause(let delay):
                Thread.sleep(forTimeInterval: delay.seconds)
            case .close, .closeWithoutNotify:
                // What the client sent is read first: closing with unread bytes would send RST.
                drain(connection)
                return
            case .reset:
                var noLinger = linger(l_onoff: 1, l_linger: 0)
                setsockopt(connection, SOL_SOCKET, SO_LINGER, &noLinger, socklen_t(MemoryLayout<linger>.size))
                return
            case .stall:
                // Reads nothing, so the client's sends fill the buffers; ends when the client goes
                // (the socket then reports an error or its end) or after a minute.
                let peerClosed: Int16 = 0x2000  // POLLRDHUP, which Glibc does not export to Swift
                var status = pollfd(fd: connection, events: peerClosed, revents: 0)
                _ = poll(&status, 1, 60_000)
                return
            }
        }
    }

    private func write(_ bytes: Data, to connection: Int32) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let sent = send(connection, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    private func drain(_ connection: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while recv(connection, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 {}
    }
}

/// A listening socket on 127.0.0.1 whose accept queue is full and never served: a connection to
/// it never completes (the kernel drops the SYN), until the listener is closed.
final class FullBacklogListener: @unchecked Sendable {
    // `@unchecked`: immutable after init.
    let port: Int
    private let listener: Int32
    private let fillers: [Int32]

    init() throws {
        (listener, port) = try LoopbackSocket.listen(backlog: 0)
        // A backlog of 0 holds one established connection; two more make sure it is full.
        var fillers: [Int32] = []
        for _ in 0..<3 {
            if let descriptor = LoopbackSocket.connect(to: port, nonBlocking: true) { fillers.append(descriptor) }
        }
        self.fillers = fillers
        // The handshakes of the fillers complete in the kernel, asynchronously.
        Thread.sleep(forTimeInterval: 0.05)
    }

    func stop() {
        for descriptor in fillers { close(descriptor) }
        close(listener)
    }
}

extension Duration {
    /// The duration in seconds, for `Thread.sleep`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
