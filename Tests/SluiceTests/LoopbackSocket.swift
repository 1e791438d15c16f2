import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Plain TCP sockets on 127.0.0.1 for the tests' hand-made servers.
enum LoopbackSocket {
    /// A socket listening on 127.0.0.1 at a port the kernel chose, and that port.
    static func listen(backlog: Int32) throws -> (descriptor: Int32, port: Int) {
        let (descriptor, bound) = try listening(AF_INET, address(port: 0), backlog: backlog, failure: .EADDRINUSE)
        return (descriptor, Int(UInt16(bigEndian: bound.sin_port)))
    }

    /// A socket listening on `address` (an IPv6 address and its scope) at a port the kernel chose,
    /// and that port.
    static func listen(on address: sockaddr_in6, backlog: Int32) throws -> (descriptor: Int32, port: Int) {
        let (descriptor, bound) = try listening(AF_INET6, address, backlog: backlog, failure: .EADDRNOTAVAIL)
        return (descriptor, Int(UInt16(bigEndian: bound.sin6_port)))
    }

    /// A socket of `family` bound to `address` and listening, and the address the kernel bound
    /// (with the port it chose); `failure` is thrown if it cannot bind or listen.
    private static func listening<Address>(
        _ family: Int32, _ address: Address, backlog: Int32, failure: POSIXErrorCode
    ) throws -> (descriptor: Int32, bound: Address) {
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        var bound = address
        let result = withUnsafePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
        guard result == 0, Glibc.listen(descriptor, backlog) == 0 else {
            close(descriptor)
            throw POSIXError(failure)
        }
        var length = socklen_t(MemoryLayout<Address>.size)
        withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(descriptor, $0, &length) }
        }
        return (descriptor, bound)
    }

    /// A socket connecting to `port` on 127.0.0.1 (a non-blocking one may still be connecting), or
    /// nil if the connection was refused.
    static func connect(to port: Int, nonBlocking: Bool = false) -> Int32? {
        let type = Int32(SOCK_STREAM.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let descriptor = socket(AF_INET, type, 0)
        var target = address(port: port)
        let result = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if result == 0 || (nonBlocking && errno == EINPROGRESS) { return descriptor }
        close(descriptor)
        return nil
    }

    private static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }
}

/// A server on 127.0.0.1 (or on another listening socket it is given) that accepts connections on
/// a thread of its own and serves each one on another, until stopped. Subclasses implement
/// `serve(_:)`.
class ThreadedLoopbackServer: @unchecked Sendable {
    // `@unchecked`: a class open to subclasses cannot be checked; its own state is immutable or
    // atomic, and subclasses keep theirs in a `Mutex` or an `Atomic`.
    let port: Int
    private let listener: Int32
    private let listening = Atomic<Bool>(true)

    init() throws {
        (listener, port) = try LoopbackSocket.listen(backlog: 16)
        startAccepting()
    }

    /// Serves the connections of `listener`, a listening socket bound to `port`; takes it over.
    init(listener: Int32, port: Int) {
        self.listener = listener
        self.port = port
        startAccepting()
    }

    private func startAccepting() {
        Thread { [self] in acceptLoop() }.start()
    }

    /// Stops listening: further connections are refused. Connections being served go on.
    func stop() {
        if listening.exchange(false, ordering: .relaxed) {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    /// Serves one accepted connection, on its own thread; the connection is closed after.
    func serve(_ connection: Int32) {}

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 { return }
            Thread { [self] in
                serve(connection)
                close(connection)
            }.start()
        }
    }
}
