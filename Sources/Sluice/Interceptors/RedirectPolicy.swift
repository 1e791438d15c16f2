import FoundationEssentials

/// Which redirects the redirect interceptor follows, and how.
///
/// By default: up to 10 hops; 301, 302 and 303 turn the request into a GET without a body (a HEAD
/// stays a HEAD), 307 and 308 keep the method and the body (a file or provider body is sent again
/// from its start); when the scheme, host or port change, `Authorization`, `Cookie`,
/// `Proxy-Authorization`, the common API-key and token headers (`secretHeaders`) and the headers in
/// `sensitiveHeaders` are removed; an https → http downgrade, a target that is not http or https, a
/// loop, a redirect with two different `Location`s and the 11th hop fail with `.redirectFailed`.
///
///     // Follow, but never to another host:
///     .redirects(.custom { redirect in
///         redirect.next.url.host == redirect.request.url.host ? .follow(redirect.next) : .stop
///     })
///
///     // Also remove a header of your own on a change of origin (the defaults are still removed):
///     RedirectPolicy(sensitiveHeaders: ["X-Tenant-Secret"])
///
///     // Keep the API-key and token headers across origins (the credential headers still go):
///     RedirectPolicy(removesSecretHeaders: false)
public struct RedirectPolicy: Sendable {
    /// The most redirects followed for one request; one more fails with `.redirectFailed`.
    public var maxHops: Int
    /// Whether a redirect from https to http is followed (refused by default).
    public var allowsDowngrade: Bool
    /// Headers removed when a redirect changes origin, besides `credentialHeaders` and
    /// `secretHeaders` (names in any case).
    public var sensitiveHeaders: Set<String>
    /// Whether `secretHeaders` are removed when a redirect changes origin (true by default).
    public var removesSecretHeaders: Bool
    /// Decides each redirect after the built-in rules proposed the next request; nil follows it.
    public var handler: (@Sendable (Redirect) -> RedirectDecision)?

    /// The headers always removed on a change of origin.
    public static let credentialHeaders: Set<String> = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// The common API-key and token headers, removed on a change of origin unless
    /// `removesSecretHeaders` is false (names compared in any case):
    ///
    /// - API keys: `X-Api-Key`, `Api-Key`, `X-Api-Token`, `X-Goog-Api-Key` (Google),
    ///   `Ocp-Apim-Subscription-Key` (Azure API Management), `X-Auth-Key`;
    /// - tokens: `X-Auth-Token`, `X-Access-Token`, `X-Amz-Security-Token` (AWS),
    ///   `Private-Token` (GitLab), `X-Vault-Token` (HashiCorp Vault);
    /// - anti-forgery tokens: `X-Csrf-Token`, `X-Xsrf-Token`.
    public static let secretHeaders: Set<String> = [
        "X-Api-Key", "Api-Key", "X-Api-Token", "X-Goog-Api-Key", "Ocp-Apim-Subscription-Key", "X-Auth-Key",
        "X-Auth-Token", "X-Access-Token", "X-Amz-Security-Token", "Private-Token", "X-Vault-Token", "X-Csrf-Token",
        "X-Xsrf-Token",
    ]

    /// Creates a policy; every argument has the documented default.
    public init(
        maxHops: Int = 10, allowsDowngrade: Bool = false, sensitiveHeaders: Set<String> = [],
        removesSecretHeaders: Bool = true, handler: (@Sendable (Redirect) -> RedirectDecision)? = nil
    ) {
        self.maxHops = maxHops
        self.allowsDowngrade = allowsDowngrade
        self.sensitiveHeaders = sensitiveHeaders
        self.removesSecretHeaders = removesSecretHeaders
        self.handler = handler
    }

    /// Every header removed when a redirect changes origin: `credentialHeaders`, `secretHeaders`
    /// (unless `removesSecretHeaders` is false) and `sensitiveHeaders`.
    public var crossOriginRemovedHeaders: Set<String> {
        var names = Self.credentialHeaders.union(sensitiveHeaders)
        if removesSecretHeaders { names.formUnion(Self.secretHeaders) }
        return names
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
