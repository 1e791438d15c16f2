import Foundation

/// A route of `MockServer`; `MockServer.url(for:)` turns one into a URL, so tests never spell paths by hand.
///
/// Byte-serving routes send the deterministic sequence `byte[i] = UInt8(i % 251)` (see
/// `MockServer.deterministicBytes(count:offset:)`) with an `X-Checksum` header that
/// `MockServer.checksum(of:)` or `MockServer.deterministicChecksum(count:offset:)` recomputes.
/// Durations travel in the URL as whole milliseconds.
public enum Endpoint: Sendable {
    /// Replies 200 with an `EchoReply` JSON object describing the request (method, path, query, headers, body).
    case echo
    /// Replies with this status code and a small JSON body (none for 1xx, 204 and 304).
    case status(Int)
    /// Replies 200 with exactly this many deterministic bytes (streamed, so any size works) and `X-Checksum`.
    case bytes(Int)
    /// Replies like `.echo`, after waiting this long.
    case delay(Duration)
    /// Sends the head at once, then `bytes` deterministic bytes in `chunks` pieces, one every `interval`.
    case drip(bytes: Int, chunks: Int, interval: Duration)
    /// Server-Sent Events (`text/event-stream`): `retry` set to `interval`, then events `id: n`,
    /// `event: tick`, `data: {"n":n}` for n = 1…count, one every `interval`, after the request's
    /// `Last-Event-ID`; then the response ends. With nothing left after `Last-Event-ID`: 204.
    case events(count: Int, interval: Duration)
    /// Replies with `Transfer-Encoding: chunked`, one HTTP chunk per string (UTF-8).
    case chunked(chunks: [String])
    /// Replies with `Transfer-Encoding: chunked`: `count` chunks of `size` deterministic bytes, with `X-Checksum`.
    case chunkedBytes(count: Int, size: Int)
    /// Replies with this many deterministic bytes, `Content-Encoding: gzip`; `X-Checksum` is of the decoded bytes.
    case gzip(bytes: Int)
    /// Replies with this many zero bytes gzip-compressed (about 1 MB on the wire per GiB decoded), computed once and cached.
    case gzipBomb(decodedBytes: Int)
    /// Replies with `status` (301, 302, 303, 307, 308…) and `Location: to`.
    case redirect(status: Int, to: URL)
    /// Replies with `status` and `Location` set to `to` verbatim, a relative reference such as `"../echo"` or `"/echo"`.
    case relativeRedirect(status: Int, to: String)
    /// Redirects (302, absolute URLs) `count` times through `redirectChain(count: n - 1)`, then replies like `.echo`.
    case redirectChain(count: Int)
    /// Replies 401 with `WWW-Authenticate: Basic` unless the request carries these Basic credentials, then 200.
    case basicAuth(user: String, password: String)
    /// Replies 401 with `WWW-Authenticate: Bearer` unless the request carries `Authorization: Bearer token`, then 200.
    case bearer(token: String)
    /// Replies 200 with a JSON object of the request's cookies: `{"cookies": {name: value}, "header": "…"}`.
    case cookies
    /// Replies 200 with one `Set-Cookie: name=value; Path=/` header per pair (sorted by name).
    case setCookies([String: String])
    /// Replies 200 with these header fields, in this order, and an empty body.
    case responseHeaders([(String, String)])
    /// Serves this many deterministic bytes honouring `Range` (one range), `If-Range`, with `ETag` and `Accept-Ranges`.
    case range(bytes: Int)
    /// The first `failures` requests for `key` get `status` (with `Retry-After` if given); later ones get 200.
    case flaky(key: String, failures: Int, status: Int = 503, retryAfter: String? = nil)
    /// Misbehaves at the connection level as the fault describes.
    case fault(Fault)
    /// Answers with the responses given to `MockServer.script(_:_:)` for this path.
    case scripted(path: String)
}

extension Endpoint {
    /// The percent-encoded path and the query items of this route.
    var target: (path: String, query: [(String, String)]) {
        switch self {
        case .echo: return ("/echo", [])
        case .status(let code): return ("/status/\(code)", [])
        case .bytes(let count): return ("/bytes/\(count)", [])
        case .delay(let duration): return ("/delay/\(duration.milliseconds)", [])
        case .events(let count, let interval):
            return ("/events", [("count", "\(count)"), ("interval", "\(interval.milliseconds)")])
        case .drip(let bytes, let chunks, let interval):
            return (
                "/drip", [("bytes", "\(bytes)"), ("chunks", "\(chunks)"), ("interval", "\(interval.milliseconds)")]
            )
        case .chunked(let chunks): return ("/chunked", chunks.map { ("chunk", $0) })
        case .chunkedBytes(let count, let size):
            return ("/chunked-bytes", [("count", "\(count)"), ("size", "\(size)")])
        case .gzip(let bytes): return ("/gzip/\(bytes)", [])
        case .gzipBomb(let decodedBytes): return ("/gzip-bomb/\(decodedBytes)", [])
        case .redirect(let status, let url):
            return ("/redirect", [("status", "\(status)"), ("to", url.absoluteString)])
        case .relativeRedirect(let status, let to):
            return ("/relative-redirect", [("status", "\(status)"), ("to", to)])
        case .redirectChain(let count): return ("/redirect-chain/\(count)", [])
        case .basicAuth(let user, let password):
            return ("/basic-auth/\(RoutePercentEncoding.segment(user))/\(RoutePercentEncoding.segment(password))", [])
        case .bearer(let token): return ("/bearer/\(RoutePercentEncoding.segment(token))", [])
        case .cookies: return ("/cookies", [])
        case .setCookies(let cookies):
            return ("/cookies/set", cookies.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        case .responseHeaders(let fields): return ("/response-headers", fields)
        case .range(let bytes): return ("/range/\(bytes)", [])
        case .flaky(let key, let failures, let status, let retryAfter):
            var query = [("failures", "\(failures)"), ("status", "\(status)")]
            if let retryAfter { query.append(("retry-after", retryAfter)) }
            return ("/flaky/\(RoutePercentEncoding.segment(key))", query)
        case .fault(let fault): return fault.target
        case .scripted(let path): return (RoutePercentEncoding.path(ScriptBook.normalize(path)), [])
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded to nearest, as routes carry it in URLs.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + (attoseconds + 500_000_000_000_000) / 1_000_000_000_000_000
    }
}
