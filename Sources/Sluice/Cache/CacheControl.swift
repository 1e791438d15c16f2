import FoundationEssentials

/// The directives of `Cache-Control` fields (RFC 9111 §5.2), of a request or of a response.
///
/// Directive names are matched without regard to case; a value may be a token or a quoted string.
/// When a directive appears more than once, the first occurrence wins (RFC 9111 §4.2.1 allows
/// either the first or treating the response as stale). A `delta-seconds` value that is not a
/// number makes the directive count as 0 (stale: the safe reading); one too large for 32 bits is
/// 2^31, as §1.2.2 asks.
public struct CacheControl: Sendable, Equatable {
    /// `max-age`: seconds the response stays fresh; for a request, the oldest response accepted.
    public var maxAge: Int?
    /// `s-maxage`: for shared caches only; a private cache reads it only as permission to store a
    /// response to a request with credentials (§3.5).
    public var sharedMaxAge: Int?
    /// `max-stale` of a request: how stale a response it accepts (`Int.max` with no value).
    public var maxStale: Int?
    /// `min-fresh` of a request: how long a response must stay fresh still.
    public var minFresh: Int?
    /// `stale-while-revalidate` (RFC 5861): seconds a stale response may be served while it is
    /// revalidated in the background.
    public var staleWhileRevalidate: Int?
    /// `stale-if-error` (RFC 5861): seconds a stale response may be served when revalidating fails.
    public var staleIfError: Int?
    /// `no-store`: nothing of the exchange is stored.
    public var noStore = false
    /// `no-cache`: a stored response is not used without validating it first.
    public var noCache = false
    /// `must-revalidate`: once stale, never served without validating it.
    public var mustRevalidate = false
    /// `proxy-revalidate`: `must-revalidate` for shared caches only.
    public var proxyRevalidate = false
    /// `private`: only a private cache (such as this one) may store it.
    public var isPrivate = false
    /// `public`: any cache may store it, even when it would not be by default.
    public var isPublic = false
    /// `only-if-cached` of a request: answer from the cache or with 504, never from the network.
    public var onlyIfCached = false
    /// `immutable`: the response will not change while fresh.
    public var immutable = false

    /// No directives.
    public init() {}

    /// The directives of every `Cache-Control` field in `headers`, in order.
    public init(_ headers: HTTPHeaders) {
        self.init()
        for value in headers.values(for: "Cache-Control") { read(value) }
    }

    /// The directives in one field value, e.g. `max-age=60, must-revalidate`.
    public init(parsing text: String) {
        self.init()
        read(text)
    }

    /// Whether there is no directive at all.
    public var isEmpty: Bool { self == CacheControl() }

    private mutating func read(_ text: String) {
        var scanner = DirectiveScanner(Array(text.utf8))
        while let (name, value) = scanner.next() {
            apply(name: name, value: value)
        }
    }

    private mutating func apply(name: String, value: String?) {
        switch name {
        case "max-age": if maxAge == nil { maxAge = Self.seconds(value) }
        case "s-maxage": if sharedMaxAge == nil { sharedMaxAge = Self.seconds(value) }
        case "max-stale": if maxStale == nil { maxStale = value == nil ? Int.max : Self.seconds(value) }
        case "min-fresh": if minFresh == nil { minFresh = Self.seconds(value) }
        case "stale-while-revalidate": if staleWhileRevalidate == nil { staleWhileRevalidate = Self.seconds(value) }
        case "stale-if-error": if staleIfError == nil { staleIfError = Self.seconds(value) }
        case "no-store": noStore = true
        // `no-cache="Set-Cookie"` (qualified) asks to revalidate only for those fields; a cache
        // that does not strip fields treats it as the unqualified directive, which is stricter.
        case "no-cache": noCache = true
        case "must-revalidate": mustRevalidate = true
        case "proxy-revalidate": proxyRevalidate = true
        case "private": isPrivate = true
        case "public": isPublic = true
        case "only-if-cached": onlyIfCached = true
        case "immutable": immutable = true
        default: break
        }
    }

    /// The greatest `delta-seconds` value a cache must represent (RFC 9111 §1.2.2).
    static let largestDelta = 2_147_483_648

    /// A `delta-seconds` value: ASCII digits only; anything else counts as 0.
    static func seconds(_ value: String?) -> Int {
        guard let value, !value.isEmpty else { return 0 }
        var result = 0
        for byte in value.utf8 {
            guard byte >= 0x30, byte <= 0x39 else { return 0 }
            result = result * 10 + Int(byte - 0x30)
            if result >= largestDelta { return largestDelta }
        }
        return result
    }
}

/// Reads `name[=value]` directives separated by commas, skipping empty and malformed ones.
struct DirectiveScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next directive, its name lowercased and its value unquoted, or nil at the end.
    mutating func next() -> (name: String, value: String?)? {
        while index < bytes.count {
            skipSpaces()
            let nameStart = index
            while index < bytes.count, bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: "="),
                !Self.isSpace(bytes[index])
            {
                index += 1
            }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            skipSpaces()
            var value: String?
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                skipSpaces()
                value = readValue()
            }
            // Whatever follows up to the next comma is not part of a well-formed directive.
            while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
            if index < bytes.count { index += 1 }
            if !name.isEmpty { return (name, value) }
        }
        return nil
    }

    private mutating func readValue() -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: ","), !Self.isSpace(bytes[index]) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        index += 1
        var value: [UInt8] = []
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count { index += 1 }
            value.append(bytes[index])
            index += 1
        }
        if index < bytes.count { index += 1 }
        return String(decoding: value, as: UTF8.self)
    }

    private mutating func skipSpaces() {
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
}
