import FoundationEssentials

/// One cookie as a `CookieJar` holds it: what a server set, or what was added by hand or loaded
/// from a file.
///
/// `SameSite` is not kept: it tells a browser whether to send a cookie with a request that another
/// site started, and an HTTP client has no other site; libcurl, which keeps the jar, drops it too.
public struct Cookie: Sendable, Hashable, CustomStringConvertible {
    /// The cookie's name.
    public var name: String
    /// The cookie's value (may be empty).
    public var value: String
    /// The host the cookie belongs to, without a leading dot (`example.com`).
    public var domain: String
    /// Whether the cookie is also sent to the domain's subdomains (it was set with a `Domain`
    /// attribute); false for a host-only cookie.
    public var includesSubdomains: Bool
    /// The path the cookie applies to, and every path below it.
    public var path: String
    /// Whether the cookie is only sent over https (`Secure`).
    public var isSecure: Bool
    /// Whether the server marked the cookie `HttpOnly` (kept for the file; an HTTP client sends it
    /// as any other).
    public var isHTTPOnly: Bool
    /// When the cookie expires, to the second; nil for a session cookie, which lasts as long as the
    /// jar and is saved to a file only when asked.
    public var expires: Date?

    /// A cookie for `domain`; by default host-only, for every path, a session cookie.
    public init(
        name: String, value: String, domain: String, includesSubdomains: Bool = false, path: String = "/",
        isSecure: Bool = false, isHTTPOnly: Bool = false, expires: Date? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.includesSubdomains = includesSubdomains
        self.path = path
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.expires = expires
    }

    /// Whether the cookie lasts only as long as its jar (it has no expiry).
    public var isSession: Bool { expires == nil }

    /// The name and where the cookie goes, without its value: a cookie is a credential, and a
    /// description ends up in logs.
    public var description: String {
        "\(name) (\(includesSubdomains ? "." : "")\(domain)\(path)\(isSecure ? ", secure" : ""))"
    }

    /// Whether the cookie has expired at `now`.
    func hasExpired(at now: Date) -> Bool {
        guard let expires else { return false }
        return expires <= now
    }

    /// Why the cookie cannot be stored, or nil. libcurl reads a cookie line by tabs and its header
    /// by `;`: a byte that would cut or extend a field is refused, not passed on.
    func problem() -> String? {
        if name.isEmpty { return "its name is empty" }
        if domain.isEmpty { return "its domain is empty" }
        if let byte = name.utf8.first(where: { Self.isForbidden($0) || $0 == UInt8(ascii: "=") || $0 == 0x20 }) {
            return "its name \(name.debugDescription) has the byte 0x\(String(byte, radix: 16))"
        }
        if let byte = value.utf8.first(where: Self.isForbidden) {
            return "the value of \(name) has the byte 0x\(String(byte, radix: 16))"
        }
        if domain.utf8.contains(where: { Self.isForbidden($0) || $0 == 0x20 || $0 == UInt8(ascii: "/") })
            || domain.utf8.first == UInt8(ascii: ".") || domain.utf8.first == UInt8(ascii: "#")
        {
            return "its domain \(domain.debugDescription) is not a host name"
        }
        if path.utf8.first != UInt8(ascii: "/") || path.utf8.contains(where: Self.isForbidden) {
            return "its path \(path.debugDescription) does not start with / or has a control byte"
        }
        return nil
    }

    /// Control bytes (a tab among them), DEL and `;`.
    private static func isForbidden(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: ";")
    }
}
