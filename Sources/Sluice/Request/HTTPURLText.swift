/// What a request URL's text must be for the transport: an http or https URL with a host, and no
/// spaces or control characters.
///
/// Read from the text of a `URL` that Foundation has parsed already: asking the `URL` for its
/// scheme and host parses them again, which cost about 1,000 instructions per request.
enum HTTPURLText {
    /// Why a URL's text was refused.
    enum Problem: Equatable {
        /// The scheme is not http or https (or there is none).
        case scheme
        /// The authority is missing or its host is empty.
        case host
        /// A space, a control character or DEL.
        case forbiddenByte
    }

    /// The first problem of an absolute URL's text, or nil if there is none.
    static func problem(in text: String) -> Problem? {
        if let problem = text.utf8.withContiguousStorageIfAvailable({ problem(in: $0) }) { return problem }
        return Array(text.utf8).withUnsafeBufferPointer { problem(in: $0) }
    }

    /// `problem(in:)` over the text's bytes, read once.
    static func problem(in bytes: UnsafeBufferPointer<UInt8>) -> Problem? {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), isHTTPScheme(bytes[0..<colon]) else {
            return .scheme
        }
        // `scheme://authority`, the authority ending at the path, the query or the fragment.
        let authorityStart = colon + 3
        guard authorityStart <= bytes.count, bytes[colon + 1] == UInt8(ascii: "/"),
            bytes[colon + 2] == UInt8(ascii: "/")
        else { return .host }
        // The authority, up to its end; then the whole rest for a forbidden byte only: two plain
        // loops cost ~15% less than one that asked every byte every question.
        var hostStart = authorityStart
        var authorityEnd = -1
        var index = authorityStart
        while index < bytes.count {
            let byte = bytes[index]
            if isAuthorityEnd(byte) {
                authorityEnd = index
                break
            }
            // User information ends at the last `@` of the authority.
            if byte == UInt8(ascii: "@") { hostStart = index + 1 }
            index += 1
        }
        var forbiddenBytes = 0
        for byte in UnsafeBufferPointer(rebasing: bytes[authorityStart...]) {
            // Below `!` (0x21: the controls and the space), or DEL: bytes from 0x80 are UTF-8's.
            forbiddenBytes &+= byte &- 0x21 >= 0x5E && byte < 0x80 ? 1 : 0
        }
        if authorityEnd < 0 { authorityEnd = bytes.count }
        guard hasHost(bytes[hostStart..<authorityEnd]) else { return .host }
        return forbiddenBytes > 0 ? .forbiddenByte : nil
    }

    /// Whether a byte ends a URL's authority: the start of the path, the query or the fragment.
    static func isAuthorityEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// Whether a scheme is `http` or `https`, in any case. Setting bit 5 lowercases an ASCII
    /// letter, and only `H` and `h` become `h` that way (likewise for the other letters).
    private static func isHTTPScheme(_ scheme: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let count = scheme.count
        guard count == 4 || count == 5 else { return false }
        let s = scheme.startIndex
        return scheme[s] | 0x20 == UInt8(ascii: "h") && scheme[s + 1] | 0x20 == UInt8(ascii: "t")
            && scheme[s + 2] | 0x20 == UInt8(ascii: "t") && scheme[s + 3] | 0x20 == UInt8(ascii: "p")
            && (count == 4 || scheme[s + 4] | 0x20 == UInt8(ascii: "s"))
    }

    /// Whether `host[:port]` names a host: an IPv6 literal with an address between its brackets,
    /// or a name or IPv4 address before the port.
    private static func hasHost(_ hostAndPort: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard let first = hostAndPort.first else { return false }
        if first == UInt8(ascii: "[") {
            guard let close = hostAndPort.firstIndex(of: UInt8(ascii: "]")) else { return false }
            return close > hostAndPort.startIndex + 1
        }
        return first != UInt8(ascii: ":")
    }
}
