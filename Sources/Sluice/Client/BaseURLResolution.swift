import Foundation

/// Resolves request paths against a client's base URL, with AFNetworking's documented rules.
///
/// With base `http://example.com/v1/`: `foo` → `http://example.com/v1/foo`; `foo?bar=baz` →
/// `http://example.com/v1/foo?bar=baz`; `/foo` → `http://example.com/foo`; `foo/` →
/// `http://example.com/v1/foo/`; `/foo/` → `http://example.com/foo/`; `http://example2.com/` →
/// `http://example2.com/`. A base URL without a trailing slash is given one, so `v1` stays in paths.
public struct BaseURLResolution: Sendable, Equatable {
    /// The base URL, always ending with `/`.
    public let baseURL: URL

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
    }

    /// The absolute URL for `path`: relative paths resolve against the base URL, absolute URLs stand.
    public func resolve(_ path: String) throws(SluiceError) -> URL {
        guard let url = URL(string: path, relativeTo: baseURL)?.absoluteURL else {
            throw SluiceError(.invalidURL, "The path \(path.debugDescription) is not a valid URL reference.")
        }
        return url
    }
}
