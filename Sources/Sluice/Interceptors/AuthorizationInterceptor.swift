import FoundationEssentials

/// Adds fixed credentials (Basic or a static bearer token) to requests that have no
/// `Authorization` header, and only to the origin of the request as it entered the chain, so a
/// redirect to another host never carries them.
public struct AuthorizationInterceptor: Interceptor {
    /// The credentials.
    public let authorization: Authorization

    /// Creates the interceptor.
    public init(_ authorization: Authorization) {
        self.authorization = authorization
    }

    /// Adds the `Authorization` header when it is missing and the origin is the original one.
    public func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        guard !request.headers.contains(Authorization.headerName),
            RedirectRules.origin(of: request.url) == RedirectRules.origin(of: chain.originalRequest.url)
        else { return chain.proceed(request) }
        var request = request
        request.headers.add(name: Authorization.headerName, value: authorization.headerValue)
        return chain.proceed(request)
    }
}

extension Interceptor where Self == AuthorizationInterceptor {
    /// HTTP Basic credentials on every request (RFC 7617).
    public static func basic(user: String, password: String) -> AuthorizationInterceptor {
        AuthorizationInterceptor(.basic(user: user, password: password))
    }

    /// These credentials on every request.
    public static func authorization(_ authorization: Authorization) -> AuthorizationInterceptor {
        AuthorizationInterceptor(authorization)
    }
}
