import FoundationEssentials
import HTTPTypes
import Sluice

extension HTTPRequest {
    /// The method, target and header fields of `request` (the body travels apart in both
    /// libraries).
    ///
    /// The authority is the URL's host and port; the path keeps the URL's percent-encoding and its
    /// query. What an HTTP request does not carry is left out: the URL's user and password (send
    /// them as an `Authorization` header) and its fragment. Fails with `.invalidMethod`,
    /// `.invalidURL` or `.invalidHeader` on what swift-http-types cannot express.
    public init(_ request: Request) throws(SluiceError) {
        guard let method = HTTPRequest.Method(request.method.rawValue) else {
            throw SluiceError(
                .invalidMethod, "The method \(request.method.rawValue.debugDescription) is not an HTTP token.")
        }
        let target = try RequestTarget(request.url)
        self.init(
            method: method, scheme: target.scheme, authority: target.authority, path: target.path,
            headerFields: try HTTPFields(request.headers))
    }
}

extension Request {
    /// A request for the method, target and header fields of `request`, with `body` and
    /// `options`.
    ///
    /// Fails with `.invalidURL` when `request` has no scheme or authority (an HTTP/2 `CONNECT`),
    /// a target that is not a path (`OPTIONS *`), or parts that do not make an absolute URL.
    public init(
        _ request: HTTPRequest, body: RequestBody = .empty, options: RequestOptions = RequestOptions()
    ) throws(SluiceError) {
        guard let scheme = request.scheme, let authority = request.authority, !authority.isEmpty else {
            throw SluiceError(
                .invalidURL, "The request \(request.method) has no scheme or no authority: no URL to send it to.")
        }
        let path = request.path ?? "/"
        // An asterisk (`OPTIONS *`) or an authority form is no path a URL can hold.
        guard path.hasPrefix("/") else {
            throw SluiceError(.invalidURL, "The request target \(path.debugDescription) is not a path.")
        }
        let text = "\(scheme)://\(authority)\(path)"
        guard let url = URL(string: text) else {
            throw SluiceError(.invalidURL, "\(text.debugDescription) is not a URL.")
        }
        self.init(
            method: HTTPMethod(rawValue: request.method.rawValue), url: url,
            headers: HTTPHeaders(request.headerFields), body: body, options: options)
    }
}

/// The pseudo-header fields of a URL: its scheme, authority, and path with query, all as written.
struct RequestTarget {
    let scheme: String
    let authority: String
    let path: String

    init(_ url: URL) throws(SluiceError) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let scheme = components.scheme, let host = components.percentEncodedHost, !host.isEmpty
        else {
            throw SluiceError(.invalidURL, "The URL \(url.absoluteString) has no scheme or no host.")
        }
        self.scheme = scheme
        // An IPv6 literal keeps its brackets: the authority is what a Host header says.
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        authority = components.port.map { "\(bracketed):\($0)" } ?? bracketed
        let bare = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        path = components.percentEncodedQuery.map { "\(bare)?\($0)" } ?? bare
    }
}
