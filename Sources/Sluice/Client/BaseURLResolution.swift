import FoundationEssentials

/// Resolves request paths against a client's base URL, with AFNetworking's documented rules.
///
/// With base `http://example.com/v1/`: `foo` → `http://example.com/v1/foo`; `foo?bar=baz` →
/// `http://example.com/v1/foo?bar=baz`; `/foo` → `http://example.com/foo`; `foo/` →
/// `http://example.com/v1/foo/`; `/foo/` → `http://example.com/foo/`; `http://example2.com/` →
/// `http://example2.com/`. A base URL without a trailing slash is given one, so `v1` stays in paths.
public struct BaseURLResolution: Sendable, Equatable {
    /// The base URL, always ending with `/`.
    public let baseURL: URL
    /// The base URL's text, and its scheme, host and port: simple paths are resolved by joining
    /// text, which costs one URL parse instead of a relative resolution and a second parse.
    private let baseText: String
    private let originText: String

    /// Creates a resolver; fails with `.invalidURL` if `baseURL` is not an absolute http(s) URL.
    public init(_ baseURL: String) throws(SluiceError) {
        var text = baseURL
        if !text.hasSuffix("/") { text += "/" }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else {
            throw SluiceError(
                .invalidURL, "The base URL \(baseURL.debugDescription) is not an absolute http or https URL.")
        }
        self.baseURL = url
        baseText = url.absoluteString
        // Only for plain bases (no user info, no IPv6 literal): the origin is then exactly
        // scheme://host[:port]. Others always take full resolution.
        if url.user == nil, url.password == nil, let host = url.host, !host.contains(":"),
            baseText.hasPrefix("\(scheme)://")
        {
            let origin = "\(url.scheme!)://\(host)" + (url.port.map { ":\($0)" } ?? "")
            originText = baseText.hasPrefix(origin) ? origin : ""
        } else {
            originText = ""
        }
    }

    /// The absolute URL for `path`: relative paths resolve against the base URL, absolute URLs stand.
    public func resolve(_ path: String) throws(SluiceError) -> URL {
        if let joined = Self.joinable(path, base: baseText, origin: originText), let url = URL(string: joined) {
            return url
        }
        guard let url = URL(string: path, relativeTo: baseURL)?.absoluteURL else {
            throw SluiceError(.invalidURL, "The path \(path.debugDescription) is not a valid URL reference.")
        }
        return url
    }

    /// The absolute URL text for a plain relative path (`users/42`, `/v2/users?x=1`), or nil for
    /// anything RFC 3986 resolution treats specially: a scheme, `//`, dot segments, a reference
    /// that is only a query or a fragment.
    private static func joinable(_ path: String, base: String, origin: String) -> String? {
        let bytes = path.utf8
        guard let first = bytes.first, first != UInt8(ascii: "?"), first != UInt8(ascii: "#"), !origin.isEmpty,
            !bytes.starts(with: "//".utf8)
        else { return nil }
        var segmentStart = true
        var inFirstSegment = true
        for byte in bytes {
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            // A colon in the first segment reads as a scheme; a segment starting with a dot may be
            // a dot segment: both go through full resolution.
            if byte == UInt8(ascii: ":") && inFirstSegment { return nil }
            if byte == UInt8(ascii: ".") && segmentStart { return nil }
            if byte == UInt8(ascii: "/") { inFirstSegment = false }
            segmentStart = byte == UInt8(ascii: "/")
        }
        return first == UInt8(ascii: "/") ? origin + path : base + path
    }
}
