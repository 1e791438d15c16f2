internal import CNetlink
import Dispatch
import FoundationEssentials
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// A netlink route socket: the only code of the reachability monitor that touches raw memory.
///
/// It is used by one thread at a time (the monitor's reader, after whoever opened it hands it
/// over), and closed by that thread; `Sendable` so that it can be handed over. Every system call
/// goes through `SystemCall.check`.
final class NetlinkSocket: Sendable {
    /// The socket's file descriptor.
    let descriptor: Int32
    /// The port the kernel gave the socket: replies to our requests are addressed to it.
    let port: UInt32
    private let closed = Lock(false)

    private init(descriptor: Int32, port: UInt32) {
        self.descriptor = descriptor
        self.port = port
    }

    /// Opens a `NETLINK_ROUTE` socket in the calling thread's network namespace and joins `groups`.
    static func open(groups: UInt32) throws(SluiceError) -> NetlinkSocket {
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = try SystemCall.check("socket(AF_NETLINK, NETLINK_ROUTE)") {
            socket(AF_NETLINK, type, Netlink.routeProtocol)
        }
        do throws(SluiceError) {
            // A bigger buffer makes overruns (and the re-reads they cost) rarer during bursts of changes.
            var bufferSize: Int32 = 1 << 20
            _ = try? SystemCall.check("setsockopt(SO_RCVBUF)") {
                setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
            }
            var address = sockaddr_nl()
            address.nl_family = sa_family_t(AF_NETLINK)
            address.nl_groups = groups
            var length = socklen_t(MemoryLayout<sockaddr_nl>.size)
            try SystemCall.check("bind(netlink)") {
                withUnsafePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
                }
            }
            try SystemCall.check("getsockname(netlink)") {
                withUnsafeMutablePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
                }
            }
            return NetlinkSocket(descriptor: descriptor, port: address.nl_pid)
        } catch {
            SystemCall.close(descriptor)
            throw error
        }
    }

    /// Opens a `NETLINK_ROUTE` socket in the network namespace of the file at `path` (such as
    /// `/run/netns/<name>`), from a short-lived thread that enters the namespace: the socket stays in
    /// the namespace it was made in, and no thread of the caller's ever changes namespace.
    static func open(groups: UInt32, inNetworkNamespaceAt path: String) throws(SluiceError) -> NetlinkSocket {
        let outcome = Lock<Result<NetlinkSocket, SluiceError>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        DetachedThread.start(name: "sluice.netns") {
            let result = Result { () throws(SluiceError) -> NetlinkSocket in
                let namespace = try SystemCall.check("open(\(path))") { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
                defer { SystemCall.close(namespace) }
                try SystemCall.check("setns(\(path))") { sluice_enter_network_namespace(namespace) }
                return try open(groups: groups)
            }
            outcome.withLock { $0 = result }
            finished.signal()
            // The thread ends here, in the namespace it entered; it runs nothing else.
        }
        finished.wait()
        return try outcome.withLock { $0! }.get()
    }

    /// Sends one request to the kernel.
    func send(_ bytes: [UInt8]) throws(SluiceError) {
        try SystemCall.check("send(netlink)") {
            bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
        }
    }

    /// Receives one datagram (several messages, usually), however long it is; blocks until one comes.
    /// Throws with `systemErrno == ENOBUFS` when the kernel had to drop messages.
    func receive() throws(SluiceError) -> [UInt8] {
        // MSG_PEEK | MSG_TRUNC tells the datagram's full length without taking it.
        let length = try SystemCall.check("recv(netlink, MSG_PEEK)") {
            recv(descriptor, nil, 0, Int32(MSG_PEEK | MSG_TRUNC))
        }
        var bytes = [UInt8](repeating: 0, count: max(length, Netlink.Size.message))
        let received = try SystemCall.check("recv(netlink)") {
            bytes.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        }
        bytes.removeSubrange(min(received, bytes.count)...)
        return bytes
    }

    /// Closes the socket (once).
    func close() {
        let wasClosed = closed.withLock { closed in
            defer { closed = true }
            return closed
        }
        if !wasClosed { SystemCall.close(descriptor) }
    }

    deinit { close() }
}

/// An eventfd that wakes the monitor's reader from `poll`: other threads signal it when they have
/// queued work (a lookup, a new subscriber, a stop). It is closed only when nobody holds it, so a
/// late signal never writes to a descriptor number that was reused.
final class WakeDescriptor: Sendable {
    let descriptor: Int32

    /// Creates the eventfd.
    init() throws(SluiceError) {
        descriptor = try SystemCall.check("eventfd") { sluice_make_wake_descriptor() }
    }

    /// Wakes the reader (the counter only grows, so this never blocks in practice).
    func signal() {
        var one: UInt64 = 1
        _ = try? SystemCall.check("write(eventfd)") { write(descriptor, &one, MemoryLayout<UInt64>.size) }
    }

    /// Resets the counter after a wake-up.
    func drain() {
        var count: UInt64 = 0
        _ = try? SystemCall.check("read(eventfd)") { read(descriptor, &count, MemoryLayout<UInt64>.size) }
    }

    deinit { SystemCall.close(descriptor) }
}

/// Which descriptors `waitForReadable` found ready.
struct Readiness {
    var socket = false
    var wake = false
}

/// Blocks until the socket or the wake descriptor can be read.
func waitForReadable(_ socket: NetlinkSocket, _ wake: WakeDescriptor) throws(SluiceError) -> Readiness {
    var descriptors = [
        pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0),
        pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0),
    ]
    try SystemCall.check("poll(netlink)") { poll(&descriptors, nfds_t(descriptors.count), -1) }
    // An error or hang-up on the socket counts as readable: the next receive reports it.
    return Readiness(socket: descriptors[0].revents != 0, wake: descriptors[1].revents != 0)
}
