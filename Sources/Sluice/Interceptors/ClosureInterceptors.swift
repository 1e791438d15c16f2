import FoundationEssentials

/// An interceptor made of a function that adapts each request before it goes on: a synchronous
/// one runs in line as the request starts, an async one in a task of its own.
public struct AdaptInterceptor: Interceptor {
    private enum Adapter: Sendable {
        case sync(@Sendable (Request) throws -> Request)
        case async(@Sendable (Request) async throws -> Request)
    }

    private let adapter: Adapter

    /// Creates an adapter from an async function (to fetch a signature or a token); an error it
    /// throws fails the request (as `.interceptorFailed` unless it is a `SluiceError`), and nothing
    /// is sent.
    public init(_ adapt: @escaping @Sendable (Request) async throws -> Request) {
        adapter = .async(adapt)
    }

    /// Creates an adapter from a synchronous function, which runs in line when the request starts:
    /// no task, no thread hop. An error it throws fails the request as the async one's does.
    public init(_ adapt: @escaping @Sendable (Request) throws -> Request) {
        adapter = .sync(adapt)
    }

    /// Adapts `request`, then proceeds with the result.
    public func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        switch adapter {
        case .sync(let adapt):
            do {
                return chain.proceed(try adapt(request))
            } catch {
                return SignalProducer(error: SluiceError.wrapping(error, as: .interceptorFailed, "An adapter failed"))
            }
        case .async(let adapt):
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

    /// Adapts every request with a synchronous function, run in line as the request starts (a
    /// closure without `await` picks this one):
    ///
    ///     .adapt { request in
    ///         var request = request
    ///         request.headers["X-Request-ID"] = UUID().uuidString
    ///         return request
    ///     }
    public static func adapt(_ adapt: @escaping @Sendable (Request) throws -> Request) -> AdaptInterceptor {
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
