import FoundationEssentials

/// The pure rules of following a redirect: which responses are redirects, what the next request
/// is, and which redirects are refused. No I/O, so they are tested without a network.
enum RedirectRules {
    /// The statuses that are followed.
    static let statuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Whether a response with `status` is a redirect to follow (when it has a Location): a
    /// response that is not passes the redirect interceptor unchanged.
    static func isFollowed(status: Int) -> Bool {
        // A range check first: every response is asked, and most are not redirects (hashing the
        // status for the set cost more than the rest of the check).
        (301...308).contains(status) && statuses.contains(status)
    }

    /// The next request after `request` was answered by `head`, or nil when `head` is not a
    /// redirect to follow (not a redirect status, or no `Location`). Throws `.redirectFailed`
    /// for a target that may not be followed, and for `Location`s that differ: which one the
    /// server meant cannot be known (the same one repeated is followed).
    static func nextRequest(after request: Request, head: ResponseHead, policy: RedirectPolicy) throws(SluiceError)
        -> Request?
    {
        guard isFollowed(status: head.status) else { return nil }
        let locations = head.headers.values(for: "Location")
        guard let location = locations.first else { return nil }
        if locations.count > 1, let other = locations.first(where: { $0 != location }) {
            throw SluiceError(
                .redirectFailed,
                "The \(head.status) redirect from \(request.url.absoluteString) has Locations that differ, \(location.debugDescription) and \(other.debugDescription): refused to follow either."
            )
        }
        guard !location.isEmpty else { return nil }
        guard let target = resolve(location, against: request.url) else {
            throw SluiceError(
                .redirectFailed,
                "The \(head.status) redirect from \(request.url.absoluteString) has an invalid Location: \(location.debugDescription)."
            )
        }
        try checkTarget(target, from: request.url, policy: policy)
        var next = request
        next.url = target
        if [301, 302, 303].contains(head.status), request.method != .head {
            next.method = .get
            next.body = .empty
            for name in ["Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding"] {
                next.headers.remove(name: name)
            }
        }
        if origin(of: request.url) != origin(of: target) {
            for name in policy.crossOriginRemovedHeaders {
                next.headers.remove(name: name)
            }
        }
        return next
    }

    /// Refuses a target that is not http or https, or that downgrades https to http (unless the
    /// policy allows it); a custom handler's changed request is checked again with this.
    static func checkTarget(_ target: URL, from source: URL, policy: RedirectPolicy) throws(SluiceError) {
        let scheme = target.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            throw SluiceError(
                .redirectFailed,
                "Refused to follow a redirect from \(source.absoluteString) to \(target.absoluteString): only http and https are followed."
            )
        }
        if source.scheme?.lowercased() == "https", scheme == "http", !policy.allowsDowngrade {
            throw SluiceError(
                .redirectFailed,
                "Refused to follow a redirect from \(source.absoluteString) to \(target.absoluteString): it downgrades https to http."
            )
        }
    }

    /// `location` resolved against `base` (RFC 9110 §10.2.2 allows relative references).
    static func resolve(_ location: String, against base: URL) -> URL? {
        let trimmed = location.trimmingWhitespace()
        guard let url = URL(string: trimmed, relativeTo: base)?.absoluteURL, url.scheme != nil else { return nil }
        return url
    }

    /// Scheme, host and port, with the scheme's default port filled in.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }
}
