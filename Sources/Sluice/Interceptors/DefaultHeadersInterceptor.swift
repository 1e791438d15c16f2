import FoundationEssentials

/// Adds the client's default headers (`Client.Configuration.defaultHeaders`) to each request
/// that does not set them itself: a request's own header always wins.
///
/// It runs below the redirect interceptor, once per hop, so a default header that is sensitive
/// (`Authorization`, `Cookie`, `Proxy-Authorization`, and the names in `sensitiveHeaders`) is only
/// added while the request goes to the origin it was made for: a redirect to another host never
/// receives it. A client passes its redirect policy's `crossOriginRemovedHeaders`, so a default
/// header is kept from another origin exactly when a request's own header would be.
public struct DefaultHeadersInterceptor: Interceptor {
    /// The headers to add.
    public let headers: HTTPHeaders
    /// Headers added only on the request's original origin, besides the credential headers; by
    /// default the common API-key and token headers (`RedirectPolicy.secretHeaders`).
    public let sensitiveHeaders: Set<String>
    /// Whether any default header is sensitive: only then is the origin worth comparing.
    private let hasSecrets: Bool

    /// Creates the interceptor.
    public init(_ headers: HTTPHeaders, sensitiveHeaders: Set<String> = RedirectPolicy.secretHeaders) {
        // Checked once here: a request that takes them as they are is not checked again. Invalid
        // ones are kept as given, and a request carrying them fails when it is prepared.
        self.headers = (try? headers.checkedForSending()) ?? headers
        self.sensitiveHeaders = sensitiveHeaders
        let secret = RedirectPolicy.credentialHeaders.union(sensitiveHeaders)
        hasSecrets = headers.contains { field in secret.contains { field.name.caseInsensitiveEquals($0) } }
    }

    /// Adds each default header whose name the request does not use, then proceeds.
    public func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        guard hasSecrets else { return chain.proceed(Self.apply(headers, to: request)) }
        let sameOrigin = RedirectRules.origin(of: request.url) == RedirectRules.origin(of: chain.originalRequest.url)
        return chain.proceed(Self.apply(headers, to: request, skipping: sameOrigin ? [] : secretNames))
    }

    /// What `intercept(_:chain:)` proceeds with for a request going to the origin it was made for,
    /// as on every request's first hop: the request with the defaults it does not set added.
    func applied(onOriginalOrigin request: Request) -> Request {
        Self.apply(headers, to: request)
    }

    private var secretNames: Set<String> { RedirectPolicy.credentialHeaders.union(sensitiveHeaders) }

    static func apply(_ defaults: HTTPHeaders, to request: Request, skipping secret: Set<String> = []) -> Request {
        // A client without defaults sends each request as it is: merging nothing into a request's
        // own fields still copied its headers and its box (some 1,300–1,700 instructions per POST).
        if defaults.isEmpty { return request }
        // The request it is given is shared (the caller keeps it), so setting the headers on a copy
        // copied its box: `replacingHeaders` makes the new box with the new headers at once.
        // Most requests bring no headers of their own: they take the defaults' storage as it is.
        if request.headers.isEmpty && secret.isEmpty { return request.replacingHeaders(defaults) }
        // The request's own few fields are checked as they merge, so that a merged list of
        // checked defaults and valid fields skips the checks of every field when the request is
        // prepared.
        return request.replacingHeaders(request.headers.addingAbsent(from: defaults, skipping: secret))
    }
}

extension Interceptor where Self == DefaultHeadersInterceptor {
    /// Adds `headers` to each request that does not set them.
    public static func defaultHeaders(_ headers: HTTPHeaders) -> DefaultHeadersInterceptor {
        DefaultHeadersInterceptor(headers)
    }
}
