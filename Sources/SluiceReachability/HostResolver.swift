import FoundationEssentials
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// Turns a host name or an address literal into IP addresses: the only code of `Reachability`
/// besides the socket that touches C memory (`inet_pton`, `getaddrinfo`'s list).
enum HostResolver {
    /// The address a literal spells (`192.0.2.1`, `2001:db8::1`, `[::1]`), or nil for a host name.
    /// Never touches the network.
    static func numericAddress(_ text: String) -> IPAddress? {
        var literal = Substring(text)
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
        var v4 = [UInt8](repeating: 0, count: 4)
        if v4.withUnsafeMutableBytes({ inet_pton(AF_INET, String(literal), $0.baseAddress) }) == 1 {
            return IPAddress(bytes: v4)
        }
        var v6 = [UInt8](repeating: 0, count: 16)
        if v6.withUnsafeMutableBytes({ inet_pton(AF_INET6, String(literal), $0.baseAddress) }) == 1 {
            return IPAddress(bytes: v6)
        }
        return nil
    }

    /// Resolves `host` with `getaddrinfo`; blocks, so call it off any thread that must stay responsive.
    /// Returns the addresses in the resolver's order of preference, without duplicates.
    static func resolve(_ host: String) -> Result<[IPAddress], SluiceError> {
        if let literal = numericAddress(host) { return .success([literal]) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0 else {
            let reason = String(cString: gai_strerror(status))
            return .failure(SluiceError(.dnsFailure, "Could not resolve \(host): \(reason)."))
        }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry = list
        while let current = entry?.pointee {
            if let address = address(of: current), !addresses.contains(address) { addresses.append(address) }
            entry = current.ai_next
        }
        return .success(addresses)
    }

    private static func address(of entry: addrinfo) -> IPAddress? {
        guard let socketAddress = entry.ai_addr else { return nil }
        switch entry.ai_family {
        case AF_INET:
            return socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin_addr) { IPAddress(bytes: $0) }
            }
        case AF_INET6:
            return socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { IPAddress(bytes: $0) }
            }
        default:
            return nil
        }
    }
}
