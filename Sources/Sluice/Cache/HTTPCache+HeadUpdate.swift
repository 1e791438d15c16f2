import FoundationEssentials

extension HTTPCache {
    /// Updates or retires the stored GET responses that `request`, a HEAD, could have been answered
    /// with, after its 200 `head` (RFC 9111 §4.3.5): a HEAD's answer is a GET's without the body.
    ///
    /// A stored response is updated with the head's fields as a 304 would update it (§3.2) when
    /// the head shows it is the same representation: every validator the head carries (`ETag`,
    /// `Last-Modified`) equals the stored one, there is at least one, and a `Content-Length` in the
    /// head equals the stored body's length. Otherwise the stored responses for the URL are
    /// removed, since they are stale: a later GET is sent to the server.
    func updateStoredGETs(after head: ResponseHead, to request: Request, requestTime: Date, responseTime: Date) {
        guard request.method == .head, head.status == 200 else { return }
        var get = request
        get.method = .get
        for entry in candidates(for: get) {
            if Self.describesSameRepresentation(head, as: entry) {
                _ = freshen(entry, with: head, requestTime: requestTime, responseTime: responseTime)
            } else {
                store.remove(entry.primaryKey)
                return
            }
        }
    }

    /// Whether `head` and the stored `entry` agree on their validators and length (see above).
    static func describesSameRepresentation(_ head: ResponseHead, as entry: CacheEntry) -> Bool {
        var compared = 0
        for name in ["ETag", "Last-Modified"] {
            guard let received = head.headers[name] else { continue }
            guard let stored = entry.headers[name], stored == received else { return false }
            compared += 1
        }
        guard compared > 0 else { return false }
        if let length = head.headers["Content-Length"] {
            guard Int(length.trimmingWhitespace()) == entry.body.count else { return false }
        }
        return true
    }
}
