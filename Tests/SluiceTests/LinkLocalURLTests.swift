import Foundation
import SluiceTesting
import Synchronization
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

#if canImport(Glibc)
    import Glibc
#endif

/// A URL whose host is a link-local IPv6 address needs its zone id (`%25eth0`) to reach the host:
/// libcurl 7.88.1 loses the zone id of a URL handed to it parsed, so such URLs go to it as text.
@Suite("Link-local IPv6 URLs")
struct LinkLocalURLTests {
    @Test func zoneIDsAreFoundInTheHostOnly() {
        #expect(EasyHandle.hasZoneID("http://[fe80::1%25eth0]:8080/x"))
        #expect(EasyHandle.hasZoneID("https://[fe80::1%eth0]/"))
        #expect(!EasyHandle.hasZoneID("http://[::1]:8080/x%25y"))
        #expect(!EasyHandle.hasZoneID("http://127.0.0.1/a?b=%25"))
        #expect(!EasyHandle.hasZoneID("http://host/[x%25]"))
    }

    @Test(.enabled(if: LinkLocalAddress.first != nil, "no link-local IPv6 address on this machine"))
    func aLinkLocalAddressWithAZoneIDIsReachedOnAReusedHandle() async throws {
        let local = try #require(LinkLocalAddress.first)
        let server = try LinkLocalServer(address: local)
        defer { server.stop() }
        try await withServer { other, transport in
            // One handle: a URL without a zone id (parsed URL attached), two with it (text only),
            // and one without again (parsed URL attached again).
            _ = try await transport.send(other.url(for: .echo))
            let url = try #require(URL(string: "http://[\(local.text)%25\(local.interface)]:\(server.port)/zone"))
            for _ in 0..<2 {
                let response = try await transport.send(url)
                #expect(response.status == 200)
                #expect(response.body == Data("ok".utf8))
            }
            _ = try await transport.send(other.url(for: .bytes(1)))
            #expect(other.recordedRequests.map(\.target) == ["/echo", "/bytes/1"])
        }
        #expect(server.requestCount == 2)
    }
}

/// The first link-local IPv6 address of an interface that is up, if there is one.
struct LinkLocalAddress: Sendable {
    var address: in6_addr
    var text: String
    var interface: String
    var scope: UInt32

    static let first: LinkLocalAddress? = {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let list else { return nil }
        defer { freeifaddrs(list) }
        var entry: UnsafeMutablePointer<ifaddrs>? = list
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let raw = current.pointee.ifa_addr, raw.pointee.sa_family == sa_family_t(AF_INET6),
                current.pointee.ifa_flags & UInt32(IFF_UP) != 0
            else { continue }
            let address = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }
            let bytes = withUnsafeBytes(of: address.sin6_addr) { Array($0) }
            guard bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80, address.sin6_scope_id != 0 else { continue }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            var copy = address.sin6_addr
            guard inet_ntop(AF_INET6, &copy, &buffer, socklen_t(buffer.count)) != nil else { continue }
            let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return LinkLocalAddress(
                address: address.sin6_addr, text: text,
                interface: String(cString: current.pointee.ifa_name), scope: address.sin6_scope_id)
        }
        return nil
    }()
}

/// A blocking HTTP/1.1 server on a link-local IPv6 address: it answers every request on each
/// connection with a 2-byte body.
final class LinkLocalServer: ThreadedLoopbackServer, @unchecked Sendable {
    private let served = Atomic<Int>(0)

    var requestCount: Int { served.load(ordering: .relaxed) }

    convenience init(address: LinkLocalAddress) throws {
        var socketAddress = sockaddr_in6()
        socketAddress.sin6_family = sa_family_t(AF_INET6)
        socketAddress.sin6_addr = address.address
        socketAddress.sin6_scope_id = address.scope
        let (listener, port) = try LoopbackSocket.listen(on: socketAddress, backlog: 4)
        self.init(listener: listener, port: port)
    }

    override func serve(_ connection: Int32) {
        var pending = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(connection, &chunk, chunk.count)
            if count <= 0 { return }
            pending += chunk[0..<count]
            while let end = pending.firstRange(of: Array("\r\n\r\n".utf8)) {
                pending.removeSubrange(..<end.upperBound)
                served.add(1, ordering: .relaxed)
                let reply = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
                _ = reply.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            }
        }
    }
}
