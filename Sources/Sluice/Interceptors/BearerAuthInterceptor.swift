import FoundationEssentials
import Synchronization

/// Adds `Authorization: Bearer <token>` to every request, asking `token` for the current token;
/// when the server answers 401 and a `refresh` function was given, refreshes the token and sends
/// the request once more with the new one.
///
/// When many requests get 401 at once, exactly one refresh runs and all of them replay with its
/// token (see `TokenRefresher`); if the refresh fails, each of them fails with its error
/// (`.authenticationFailed` unless the refresh threw a `SluiceError`).
///
///     .bearer(token: { await tokens.current }, refresh: { try await tokens.refresh() })
public struct BearerAuthInterceptor: Interceptor {
    let token: @Sendable () async throws -> String
    let refresher: TokenRefresher?

    /// Creates the interceptor; without `refresh`, a 401 is delivered as it is.
    public init(
        token: @escaping @Sendable () async throws -> String,
        refresh: (@Sendable () async throws -> String)? = nil
    ) {
        self.token = token
        self.refresher = refresh.map(TokenRefresher.init)
    }

    /// Sends `request` with the current token, and once more after a refresh if it is refused.
    public func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        // Same origin only: a redirect to another host must not receive the token.
        guard RedirectRules.origin(of: request.url) == RedirectRules.origin(of: chain.originalRequest.url) else {
            return chain.proceed(request)
        }
        let token = self.token
        let refresher = self.refresher
        let current = SignalProducer<String, SluiceError> { () async throws(SluiceError) -> String in
            do {
                return try await token()
            } catch {
                throw SluiceError.wrapping(error, as: .interceptorFailed, "The bearer token could not be fetched")
            }
        }
        return current.flatMap(.concat) { token in
            guard let refresher else { return chain.proceed(Self.authorize(request, with: token)) }
            return SignalProducer { observer, lifetime in
                let run = BearerRun(request: request, chain: chain, refresher: refresher, observer: observer)
                lifetime += run.current
                run.send(with: token, isReplay: false)
            }
        }
    }

    static func authorize(_ request: Request, with token: String) -> Request {
        var request = request
        request.headers[Authorization.headerName] = Authorization.bearer(token).headerValue
        return request
    }
}

extension Interceptor where Self == BearerAuthInterceptor {
    /// A bearer token on every request, from `token` (asked once per request).
    public static func bearer(_ token: @escaping @Sendable () async throws -> String) -> BearerAuthInterceptor {
        BearerAuthInterceptor(token: token)
    }

    /// A bearer token on every request, refreshed with `refresh` when the server answers 401.
    public static func bearer(
        token: @escaping @Sendable () async throws -> String, refresh: @escaping @Sendable () async throws -> String
    ) -> BearerAuthInterceptor {
        BearerAuthInterceptor(token: token, refresh: refresh)
    }
}

/// One start of a request with a refreshable token: the first attempt, and the replay after a 401.
final class BearerRun: Sendable {
    private let request: Request
    private let chain: InterceptorChain
    private let refresher: TokenRefresher
    private let observer: Observer<Response, SluiceError>
    /// The token the 401 refused, while its response is dropped; the refresh starts when it ends.
    private let refused = Mutex<String?>(nil)
    /// The running attempt, or the refresh.
    let current = SerialDisposable()

    init(
        request: Request, chain: InterceptorChain, refresher: TokenRefresher,
        observer: Observer<Response, SluiceError>
    ) {
        self.request = request
        self.chain = chain
        self.refresher = refresher
        self.observer = observer
    }

    func send(with token: String, isReplay: Bool) {
        guard let attempt = current.freshSlot() else { return }  // the caller left meanwhile
        attempt.inner = chain.proceed(BearerAuthInterceptor.authorize(request, with: token)).start { [self] event in
            switch event {
            case .value(let response) where response.status == 401 && !isReplay && carried(token, response):
                response.discardBody()
                refused.withLock { $0 = token }
            case .value(let response):
                observer.send(value: response)
            case .completed, .failed:
                if let stale = refused.withLock({ $0 }) {
                    refreshAndReplay(replacing: stale)
                } else if case .failed(let error) = event {
                    observer.send(error: error)
                } else {
                    observer.sendCompleted()
                }
            case .interrupted:
                observer.sendInterrupted()
            }
        }
    }

    /// Whether the request the 401 answered carried `token`: after a redirect to another origin it
    /// did not, and that server's 401 says nothing about our token.
    private func carried(_ token: String, _ response: Response) -> Bool {
        response.request.headers[Authorization.headerName] == Authorization.bearer(token).headerValue
    }

    private func refreshAndReplay(replacing stale: String) {
        chain.report(.retried(RetryAttempt(attempt: 2, reason: .unauthorized, delay: .zero)))
        // A token that is already known arrives during `start`, and starts the replay.
        guard let refresh = current.freshSlot() else { return }
        refresh.inner = refresher.token(replacing: stale).start { [self] event in
            switch event {
            case .value(let token):
                refused.withLock { $0 = nil }
                send(with: token, isReplay: true)
            case .failed(let error): observer.send(error: error)
            case .completed: break
            case .interrupted:
                // After the token arrived, the replay replaced this subscription: its end is not ours.
                if refused.withLock({ $0 != nil }) { observer.sendInterrupted() }
            }
        }
    }
}
