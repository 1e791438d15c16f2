import Sluice

/// An IPv4 or IPv6 address as the kernel sends it: 4 or 16 bytes in network order.
struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address bytes, 4 for IPv4 and 16 for IPv6.
    let bytes: [UInt8]

    /// An address from its bytes; nil unless there are 4 or 16 of them.
    init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = Array(bytes)
    }

    /// An IPv4 address from its four parts.
    init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        bytes = [a, b, c, d]
    }

    /// Whether this is an IPv6 address.
    var isIPv6: Bool { bytes.count == 16 }

    /// The netlink address family of the address (`AF_INET` or `AF_INET6`).
    var family: UInt8 { isIPv6 ? Netlink.Family.inet6 : Netlink.Family.inet }

    /// Whether the address is a loopback address: 127.0.0.0/8, ::1, or 127.0.0.0/8 mapped into IPv6.
    var isLoopback: Bool {
        if !isIPv6 { return bytes[0] == 127 }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        let isMapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        return isMapped && bytes[12] == 127
    }

    /// Dotted decimal for IPv4; for IPv6, hex groups with the longest run of zero groups shortened
    /// to `::` (RFC 5952).
    var description: String {
        guard isIPv6 else { return bytes.map(String.init).joined(separator: ".") }
        let groups = (0..<8).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
        var best: Range<Int>?
        var start: Int?
        for index in 0...8 {
            if index < 8, groups[index] == 0 {
                if start == nil { start = index }
            } else if let runStart = start {
                if index - runStart > 1, index - runStart > (best?.count ?? 0) { best = runStart..<index }
                start = nil
            }
        }
        let hex = { (range: Range<Int>) in groups[range].map { String($0, radix: 16) }.joined(separator: ":") }
        guard let best else { return hex(0..<8) }
        return hex(0..<best.lowerBound) + "::" + hex(best.upperBound..<8)
    }
}
