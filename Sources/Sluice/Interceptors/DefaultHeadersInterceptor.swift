import Foundation

/// Adds the client's default headers (`Client.Configuration.defaultHeaders`) to each request
/// that does not set them itself: a request's own header always wins.
public struct DefaultHeadersInterceptor: Interceptor {
    /// The headers to add.
    public let headers: HTTPHeaders

    /// Creates the interceptor.
    public init(_ headers: HTTPHeaders) {
        self.headers = headers
    }

    /// Adds each default header whose name the request does not use, then proceeds.
    public func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<TransferEvent, SluiceError> {
        chain.proceed(Self.apply(headers, to: request))
    }

    static func apply(_ defaults: HTTPHeaders, to request: Request) -> Request {
        var request = request
        for field in defaults where !request.headers.contains(field.name) {
            request.headers.add(name: field.name, value: field.value)
        }
        return request
    }
}

extension Interceptor where Self == DefaultHeadersInterceptor {
    /// Adds `headers` to each request that does not set them.
    public static func defaultHeaders(_ headers: HTTPHeaders) -> DefaultHeadersInterceptor {
        DefaultHeadersInterceptor(headers)
    }
}
