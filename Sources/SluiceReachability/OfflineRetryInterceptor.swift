import FoundationEssentials
import Sluice

/// Holds a request that failed because the network is unreachable, and sends it again once
/// reachability returns (what Alamofire's OfflineRetrier does on Apple platforms only).
///
/// A failure counts as "offline" when it is `.cannotConnect` or `.dnsFailure` while the
/// reachability status is `.unreachable`. Nothing reached the server then, so any method may be
/// sent again, unless an earlier hop of the same request was answered (a POST redirected to a GET
/// that failed): then only idempotent methods are. When
/// the status is reachable or unknown, the error is passed on at once: the network is not the
/// reason. A request waits at most `maxWait`, then fails with its original error; it is sent again
/// at most `maxRetries` times. Each retry is reported as a `.retried` event whose delay is the wait.
///
///     let client = try Client(baseURL: "https://api.example.com/", interceptors: [.offlineRetry()])
public struct OfflineRetryInterceptor: Interceptor {
    /// What says whether the network is reachable.
    public let status: Property<ReachabilityStatus>
    /// The longest a request waits for the network.
    public let maxWait: Duration
    /// How many times a request is sent again after the network returned.
    public let maxRetries: Int
    /// Keeps the watching alive as long as the interceptor is.
    private let reachability: Reachability?

    /// Creates the interceptor on `reachability` (the default route unless told otherwise).
    public init(reachability: Reachability = .shared, maxWait: Duration = .seconds(60), maxRetries: Int = 1) {
        self.status = reachability.status
        self.reachability = reachability
        self.maxWait = maxWait
        self.maxRetries = maxRetries
    }

    /// Creates the interceptor on any source of reachability (tests drive one by hand).
    public init(status: Property<ReachabilityStatus>, maxWait: Duration = .seconds(60), maxRetries: Int = 1) {
        self.status = status
        self.reachability = nil
        self.maxWait = maxWait
        self.maxRetries = maxRetries
    }

    /// The codes that mean nothing reached the server.
    static let offlineCodes: Set<SluiceError.Code> = [.cannotConnect, .dnsFailure]

    /// Sends `request`; if it fails while offline, waits for the network and sends it again.
    public func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        attempt(request, chain: chain, retriesLeft: maxRetries, attempt: 1)
    }

    private func attempt(_ request: Request, chain: InterceptorChain, retriesLeft: Int, attempt: Int)
        -> SignalProducer<Response, SluiceError>
    {
        let status = self.status
        let maxWait = self.maxWait
        return chain.proceed(request).flatMapError { error in
            let processed =
                chain.hasReceivedResponse && !RetryPolicy.idempotentMethods.contains(request.method)
            guard retriesLeft > 0, !processed, Self.offlineCodes.contains(error.code), status.value == .unreachable
            else {
                return SignalProducer(error: error)
            }
            let scheduler = chain.scheduler
            let waitStarted = scheduler.currentDate
            // The first reachable status, or nothing after maxWait: then the original error.
            let back = status.producer.filter(\.isReachable).take(first: 1)
                .promoteError(SluiceError.self)
                .timeout(after: maxWait, raising: error, on: scheduler)
            return back.flatMap(.concat) { _ in
                let waited = Duration.timeInterval(max(0, scheduler.currentDate.timeIntervalSince(waitStarted)))
                chain.report(.retried(RetryAttempt(attempt: attempt + 1, reason: .error(error), delay: waited)))
                return self.attempt(request, chain: chain, retriesLeft: retriesLeft - 1, attempt: attempt + 1)
            }
        }
    }
}

extension Interceptor where Self == OfflineRetryInterceptor {
    /// Holds requests that failed while offline until `reachability` says the network is back.
    public static func offlineRetry(
        reachability: Reachability = .shared, maxWait: Duration = .seconds(60), maxRetries: Int = 1
    ) -> OfflineRetryInterceptor {
        OfflineRetryInterceptor(reachability: reachability, maxWait: maxWait, maxRetries: maxRetries)
    }
}
