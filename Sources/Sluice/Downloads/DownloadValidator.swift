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

    /// The value for `If-Range`.
    public var ifRangeValue: String {
        switch self {
        case .entityTag(let tag): return tag
        case .lastModified(let date): return date
        }
    }
}
