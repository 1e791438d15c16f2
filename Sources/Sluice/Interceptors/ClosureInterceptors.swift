import FoundationEssentials

/// An interceptor made of an async function that adapts each request before it goes on.
public struct AdaptInterceptor: Interceptor {
    let adapt: @Sendable (Request) async throws -> Request

    /// Creates an adapter; an error it throws fails the request (as `.interceptorFailed` unless it
    /// is a `SluiceError`), and nothing is sent.
    public init(_ adapt: @escaping @Sendable (Request) async throws -> Request) {
        self.adapt = adapt
    }

    /// Adapts `request`, then proceeds with the result.
    public func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        let adapt = self.adapt
        return SignalProducer<Request, SluiceError> { () async throws(SluiceError) -> Request in
            do {
                return try await adapt(request)
            } catch {
                throw SluiceError.wrapping(error, as: .interceptorFailed, "An adapter failed")
            }
        }
        .flatMap(.concat) { chain.proceed($0) }
    }
}

/// An interceptor that looks at each response head as it arrives, and may replace it or fail.
public struct ResponseInterceptor: Interceptor {
    let inspect: @Sendable (Request, ResponseHead) throws -> ResponseHead

    /// Creates the interceptor; `inspect` returns the head to pass on (the same one to only
    /// observe), or throws to fail the request (as `.interceptorFailed` unless it is a `SluiceError`).
    public init(_ inspect: @escaping @Sendable (Request, ResponseHead) throws -> ResponseHead) {
        self.inspect = inspect
    }

    /// Proceeds with `request` and passes each head through `inspect`.
    public func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        let inspect = self.inspect
        return chain.proceed(request).attemptMap { (response) throws(SluiceError) -> Response in
            let head: ResponseHead
            do {
                head = try inspect(request, response.head)
            } catch {
                response.discardBody()
                throw SluiceError.wrapping(error, as: .interceptorFailed, "A response interceptor failed")
            }
            return head == response.head ? response : response.replacingHead(head)
        }
    }
}

extension Interceptor where Self == AdaptInterceptor {
    /// Adapts every request with an async function, e.g. to add a signature:
    ///
    ///     .adapt { request in
    ///         var request = request
    ///         request.headers["X-Signature"] = try await signer.sign(request.url)
    ///         return request
    ///     }
    public static func adapt(_ adapt: @escaping @Sendable (Request) async throws -> Request) -> AdaptInterceptor {
        AdaptInterceptor(adapt)
    }
}

extension Interceptor where Self == ResponseInterceptor {
    /// Observes or replaces every response head, or fails the request by throwing:
    ///
    ///     .onResponse { request, head in
    ///         if head.status == 426 { throw SluiceError(.protocolError, "Upgrade required") }
    ///         return head
    ///     }
    public static func onResponse(
        _ inspect: @escaping @Sendable (Request, ResponseHead) throws -> ResponseHead
    ) -> ResponseInterceptor {
        ResponseInterceptor(inspect)
    }
}

extension SluiceError {
    /// `error` itself if it is a `SluiceError`, otherwise a new error with `code` that keeps it.
    static func wrapping(_ error: any Error, as code: Code, _ context: String) -> SluiceError {
        if let error = error as? SluiceError { return error }
        return SluiceError(code, "\(context): \(error)", underlyingError: error)
    }
}
