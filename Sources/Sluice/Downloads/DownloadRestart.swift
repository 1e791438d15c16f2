/// Why a resumed download started over from its first byte (`TaskEvent.Kind.downloadRestarted`):
/// the bytes kept so far were dropped, and the whole content is downloaded again.
public enum DownloadRestart: Sendable, Equatable {
    /// The content changed since the bytes kept were received: the server answered the range
    /// request with all of the new content (200, a validator other than `If-Range`'s), or with a
    /// range of it (206 under another validator: the server ignored `If-Range`).
    case contentChanged
    /// The server does not serve ranges: it answered with all of the same content (200).
    case rangeIgnored
    /// The server refused the range (416); asked again for all of the content.
    case rangeNotSatisfiable
    /// The server's 206 held other bytes than the ones asked for (its `Content-Range`).
    case rangeMismatch
    /// The temporary file holds fewer bytes than the resume data says (`found` of `expected`), or
    /// is gone (`found` 0): its bytes cannot be trusted.
    case partialFileShorter(expected: Int64, found: Int64)
}
