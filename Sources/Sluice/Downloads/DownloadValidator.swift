import FoundationEssentials

/// What identifies the content a partial download holds, sent back in `If-Range` so that the
/// server sends the rest only if the content is still the same: a strong `ETag`, else
/// `Last-Modified` (RFC 9110, 13.1.5). A weak `ETag` (`W/"…"`) cannot guard a range.
public enum DownloadValidator: Sendable, Hashable, Codable {
    /// A strong entity tag, quotes included, as the server sent it.
    case entityTag(String)
    /// The `Last-Modified` date, as the server sent it.
    case lastModified(String)

    /// The response's strong validator, if it has one.
    public init?(headers: HTTPHeaders) {
        if let tag = headers["ETag"]?.trimmingWhitespace(), !tag.isEmpty, !tag.hasPrefix("W/") {
            self = .entityTag(tag)
        } else if let date = headers["Last-Modified"]?.trimmingWhitespace(), !date.isEmpty {
            self = .lastModified(date)
        } else {
            return nil
        }
    }

    /// Whether a response's headers name another content than this validator does: an `ETag`
    /// whose tag differs from this one even by weak comparison (RFC 9110 §8.8.3.2: `W/"a"` may be
    /// the same content as `"a"`, `W/"b"` is not), or a `Last-Modified` other than this date. A
    /// 206 that says so answered a range of another content, ignoring `If-Range` (RFC 9110
    /// §13.1.5): its bytes must not be joined to the ones this validator guards. A response
    /// without the field contradicts nothing.
    func isContradicted(by headers: HTTPHeaders) -> Bool {
        switch self {
        case .entityTag(let tag):
            guard var other = headers["ETag"]?.trimmingWhitespace(), !other.isEmpty else { return false }
            if other.hasPrefix("W/") { other.removeFirst(2) }
            return other != tag
        case .lastModified(let date):
            guard let other = headers["Last-Modified"]?.trimmingWhitespace(), !other.isEmpty else { return false }
            return other != date
        }
    }

    /// The value for `If-Range`.
    public var ifRangeValue: String {
        switch self {
        case .entityTag(let tag): return tag
        case .lastModified(let date): return date
        }
    }
}
