import Foundation
import Sluice
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A SOCKS5 proxy on 127.0.0.1 (RFC 1928, CONNECT only), with user name and password
/// authentication (RFC 1929) when given credentials. It reaches origins on 127.0.0.1 only: any
/// host name it is sent "resolves" there, so a name only the proxy can resolve proves that the
/// client let the proxy resolve it. Every request is recorded with its address type.
final class Socks5Proxy: ThreadedLoopbackServer, @unchecked Sendable {
    /// A CONNECT request the proxy received.
    struct Record: Equatable {
        /// The address type: 1 for IPv4, 3 for a domain name, 4 for IPv6.
        var addressType: UInt8
        /// The host: the name, or the address as text.
        var host: String
        var port: Int
    }

    private let credentials: (username: String, password: String)?
    private let records = Mutex<[Record]>([])
    private let refusals = Atomic<Int>(0)

    /// A proxy that asks for `credentials`, if given.
    init(credentials: (username: String, password: String)? = nil) throws {
        self.credentials = credentials
        try super.init()
    }

    /// The CONNECT requests of clients that authenticated, in order.
    var recorded: [Record] { records.withLock { $0 } }

    /// How many clients sent wrong credentials.
    var refusedCount: Int { refusals.load(ordering: .relaxed) }

    /// The proxy, for `RequestOptions.proxy`.
    var proxy: Proxy { .socks5(host: "127.0.0.1", port: port) }

    override func serve(_ client: Int32) {
        // The greeting: version 5, the methods the client offers.
        guard let greeting = LoopbackSocket.read(client, count: 2), greeting[0] == 5,
            let methods = LoopbackSocket.read(client, count: Int(greeting[1]))
        else { return }
        let method: UInt8 = credentials == nil ? 0x00 : 0x02
        guard methods.contains(method) else {
            LoopbackSocket.sendAll(client, [5, 0xFF])
            return
        }
        guard LoopbackSocket.sendAll(client, [5, method]) else { return }
        if let credentials {
            // RFC 1929: version 1, the user name and the password, each after its length.
            guard let version = LoopbackSocket.read(client, count: 2), version[0] == 1,
                let username = LoopbackSocket.read(client, count: Int(version[1])),
                let passwordLength = LoopbackSocket.read(client, count: 1),
                let password = LoopbackSocket.read(client, count: Int(passwordLength[0]))
            else { return }
            guard String(decoding: username, as: UTF8.self) == credentials.username,
                String(decoding: password, as: UTF8.self) == credentials.password
            else {
                refusals.add(1, ordering: .relaxed)
                LoopbackSocket.sendAll(client, [1, 1])
                return
            }
            guard LoopbackSocket.sendAll(client, [1, 0]) else { return }
        }
        // The request: version, command (1: CONNECT), reserved, the address, the port.
        guard let request = LoopbackSocket.read(client, count: 4), request[0] == 5, request[1] == 1 else { return }
        let host: String
        switch request[3] {
        case 1:
            guard let address = LoopbackSocket.read(client, count: 4) else { return }
            host = address.map(String.init).joined(separator: ".")
        case 3:
            guard let length = LoopbackSocket.read(client, count: 1),
                let name = LoopbackSocket.read(client, count: Int(length[0]))
            else { return }
            host = String(decoding: name, as: UTF8.self)
        case 4:
            guard let address = LoopbackSocket.read(client, count: 16) else { return }
            host = address.map { String($0, radix: 16) }.joined(separator: ":")
        default:
            return
        }
        guard let portBytes = LoopbackSocket.read(client, count: 2) else { return }
        let port = Int(portBytes[0]) << 8 | Int(portBytes[1])
        records.withLock { $0.append(Record(addressType: request[3], host: host, port: port)) }
        guard let server = LoopbackSocket.connect(to: port) else {
            // Connection refused.
            LoopbackSocket.sendAll(client, [5, 5, 0, 1, 0, 0, 0, 0, 0, 0])
            return
        }
        defer { close(server) }
        guard LoopbackSocket.sendAll(client, [5, 0, 0, 1, 127, 0, 0, 1, 0, 0]) else { return }
        LoopbackSocket.relay(client, server)
    }
}
