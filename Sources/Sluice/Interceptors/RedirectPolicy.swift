import FoundationEssentials

/// Which redirects the redirect interceptor follows, and how.
///
/// By default: up to 10 hops; 301, 302 and 303 turn the request into a GET without a body (a HEAD
/// stays a HEAD), 307 and 308 keep the method and the body (a file or provider body is sent again
/// from its start); `Authorization`, `Cookie`, `Proxy-Authorization` and the headers in
/// `sensitiveHeaders` are removed when the scheme, host or port change; an https → http
/// downgrade, a target that is not http or https, a loop and the 11th hop fail with `.redirectFailed`.
///
///     // Follow, but never to another host:
///     .redirects(.custom { redirect in
///         redirect.next.url.host == redirect.request.url.host ? .follow(redirect.next) : .stop
///     })
public struct RedirectPolicy: Sendable {
    /// The most redirects followed for one request; one more fails with `.redirectFailed`.
    public var maxHops: Int
    /// Whether a redirect from https to http is followed (refused by default).
    public var allowsDowngrade: Bool
    /// Headers removed when a redirect changes origin, besides the three always removed.
    public var sensitiveHeaders: Set<String>
    /// Decides each redirect after the built-in rules proposed the next request; nil follows it.
    public var handler: (@Sendable (Redirect) -> RedirectDecision)?

    /// The headers always removed on a change of origin.
    public static let credentialHeaders: Set<String> = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// Creates a policy; every argument has the documented default.
    public init(
        maxHops: Int = 10, allowsDowngrade: Bool = false, sensitiveHeaders: Set<String> = [],
        handler: (@Sendable (Redirect) -> RedirectDecision)? = nil
    ) {
        self.maxHops = maxHops
        self.allowsDowngrade = allowsDowngrade
        self.sensitiveHeaders = sensitiveHeaders
        self.handler = handler
    }

    /// Follows up to 10 redirects with the default rules.
    public static let `default` = RedirectPolicy()

    /// Follows no redirect: 3xx responses are delivered as they are.
    public static let none = RedirectPolicy(maxHops: 0)

    /// The default rules, with `handler` deciding each redirect (AFNetworking's
    /// `taskWillPerformHTTPRedirection`): follow the proposed request or a changed one, stop, or fail.
    public static func custom(_ handler: @escaping @Sendable (Redirect) -> RedirectDecision) -> RedirectPolicy {
        RedirectPolicy(handler: handler)
    }
}

/// A redirect the server asked for, with the request the default rules would send next.
public struct Redirect: Sendable {
    /// The request that was answered with the redirect.
    public let request: Request
    /// The redirect response's head.
    public let response: ResponseHead
    /// The request the default rules send next (method changed, secrets removed as needed).
    public let next: Request
    /// Which redirect of this request this is, from 1.
    public let hop: Int
}

/// What to do with a redirect.
public enum RedirectDecision: Sendable {
    /// Send this request next (usually `redirect.next`, perhaps changed).
    case follow(Request)
    /// Do not follow: deliver the 3xx response as it is.
    case stop
    /// Fail the request with this error.
    case fail(SluiceError)
}
