/// A way `MockServer` misbehaves on a connection, for testing how a client copes (`Endpoint.fault`).
///
/// Every fault reads the whole request first, so the request is recorded.
public enum Fault: Sendable, Equatable {
    /// Closes the connection without sending anything.
    case closeBeforeHeaders
    /// Sends a head announcing 1 MiB and 64 KiB of body, then resets the connection (TCP RST, `SO_LINGER` 0).
    case resetMidBody
    /// Announces `Content-Length: 1024`, sends 512 bytes, then closes.
    case shortBody
    /// Sends a status line that is not HTTP (`HTTP/1.1 2OO OK`), then closes.
    case malformedStatusLine
    /// Replies 200 with `X-Filler-N` header fields adding up to about `bytes` bytes, and a two-byte body.
    case hugeHeaders(bytes: Int)
    /// Sends a chunked body of deterministic bytes forever, until the client goes away.
    case endlessBody
    /// Reads the request and never answers; the connection stays open until the client or `shutdown()` closes it.
    case neverRespond
    /// Sends a head announcing 1024 bytes, then closes before any body.
    case closeAfterHeaders
}

extension Fault {
    /// The announced length for `shortBody` and `closeAfterHeaders`.
    static let announcedLength = 1024
    /// The length announced by `resetMidBody`.
    static let resetAnnouncedLength = 1 << 20
    /// The body bytes `resetMidBody` sends before the reset.
    static let resetSentLength = 64 * 1024

    var target: (path: String, query: [(String, String)]) {
        switch self {
        case .closeBeforeHeaders: return ("/fault/close-before-headers", [])
        case .resetMidBody: return ("/fault/reset-mid-body", [])
        case .shortBody: return ("/fault/short-body", [])
        case .malformedStatusLine: return ("/fault/malformed-status-line", [])
        case .hugeHeaders(let bytes): return ("/fault/huge-headers", [("bytes", "\(bytes)")])
        case .endlessBody: return ("/fault/endless-body", [])
        case .neverRespond: return ("/fault/never-respond", [])
        case .closeAfterHeaders: return ("/fault/close-after-headers", [])
        }
    }

    /// The fault a `/fault/NAME` request asks for.
    init?(name: String, query: [String: [String]]) {
        switch name {
        case "close-before-headers": self = .closeBeforeHeaders
        case "reset-mid-body": self = .resetMidBody
        case "short-body": self = .shortBody
        case "malformed-status-line": self = .malformedStatusLine
        case "huge-headers": self = .hugeHeaders(bytes: query["bytes"]?.first.flatMap { Int($0) } ?? 64 * 1024)
        case "endless-body": self = .endlessBody
        case "never-respond": self = .neverRespond
        case "close-after-headers": self = .closeAfterHeaders
        default: return nil
        }
    }
}
