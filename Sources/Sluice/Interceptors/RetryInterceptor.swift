import FoundationEssentials
import Synchronization

/// Sends a request again when an attempt fails in a way the `RetryPolicy` calls temporary, after
/// the policy's wait on the chain's scheduler (so tests use virtual time).
///
/// A retryable response is not passed on: its body is discarded, and the next attempt's response
/// takes its place. Once a response has been passed on, nothing is retried, so the caller never
/// receives the same body bytes twice. When the attempts run out, the last response
/// is passed on as it is (`validate()` then makes a 503 an error), or the last error.
/// Each retry is reported as a `TaskEvent.Kind.retried` event.
///
/// One policy applies to a request, wherever retries are configured: the request's own
/// (`RequestOptions.retryPolicy`) if it has one, else the policy of the first retry interceptor
/// it meets: a `.retry(...)` among the client's interceptors, else the client's built-in one
/// (`Client.Configuration.retryPolicy`). The interceptor that applies a policy sends its attempts
/// on with `retryPolicy = .never`, so a retry interceptor further down the chain lets them pass:
/// attempts never multiply.
public struct RetryInterceptor: Interceptor {
    /// When and how soon to retry, unless the request has a policy of its own.
    public let policy: RetryPolicy
    let scheduler: (any DateScheduler)?

    /// Creates the interceptor; it waits on `scheduler`, or on the client's when nil.
    public init(_ policy: RetryPolicy = .default, scheduler: (any DateScheduler)? = nil) {
        self.policy = policy
        self.scheduler = scheduler
    }

    /// Runs attempts of `request` until one succeeds or the policy stops.
    public func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        // Read in place first: most requests are never retried, and copying the policy out (its
        // sets and closures) would cost them more than the check.
        let attempts = request.options.retryPolicy?.maxAttempts ?? self.policy.maxAttempts
        guard attempts > 1 else { return chain.proceed(request) }
        let policy = request.options.retryPolicy ?? self.policy
        guard policy.methods.contains(request.method) else { return chain.proceed(request) }
        var attempt = request
        attempt.options.retryPolicy = .never
        let scheduler = self.scheduler ?? chain.scheduler
        return SignalProducer { [attempt] observer, lifetime in
            let run = RetryRun(
                policy: policy, request: attempt, chain: chain, scheduler: scheduler, observer: observer)
            lifetime += run.current
            run.startAttempt()
        }
    }
}

extension Interceptor where Self == RetryInterceptor {
    /// Retries temporary failures as `policy` says (see `RetryPolicy` for the defaults).
    public static func retry(_ policy: RetryPolicy = .default, scheduler: (any DateScheduler)? = nil)
        -> RetryInterceptor
    {
        RetryInterceptor(policy, scheduler: scheduler)
    }
}

/// One start of a retried request: the attempts, one at a time.
final class RetryRun: Sendable {
    private struct State {
        var attempt = 0
        var started = Date()
        /// A head has been passed on; from then on failures are final.
        var delivered = false
        /// The current attempt's response is retryable: its events are dropped, and the retry
        /// waits this long once the attempt ends.
        var pendingRetry: (delay: Duration, reason: RetryReason)?
    }

    private let policy: RetryPolicy
    private let request: Request
    private let chain: InterceptorChain
    private let scheduler: any DateScheduler
    private let observer: Observer<Response, SluiceError>
    private let state = Mutex(State())
    /// The running attempt, or the wait before the next one.
    let current = SerialDisposable()

    init(
        policy: RetryPolicy, request: Request, chain: InterceptorChain, scheduler: any DateScheduler,
        observer: Observer<Response, SluiceError>
    ) {
        self.policy = policy
        self.request = request
        self.chain = chain
        self.scheduler = scheduler
        self.observer = observer
    }

    func startAttempt() {
        let now = scheduler.currentDate
        state.withLock { s in
            if s.attempt == 0 { s.started = now }
            s.attempt += 1
            s.pendingRetry = nil
        }
        // Nil when the caller left while a backoff timer fired: send nothing.
        guard let attempt = current.freshSlot() else { return }
        attempt.inner = chain.proceed(request).start { [self] event in handle(event) }
    }

    private func handle(_ event: Event<Response, SluiceError>) {
        switch event {
        case .value(let response):
            let (attempt, started) = state.withLock { s in (s.attempt, s.started) }
            let elapsed = elapsedTime(since: started)
            if let delay = policy.delay(
                after: .response(response.head), attempt: attempt, method: request.method, elapsed: elapsed,
                now: scheduler.currentDate)
            {
                response.discardBody()
                state.withLock { $0.pendingRetry = (delay, .status(response.status)) }
            } else {
                state.withLock { $0.delivered = true }
                observer.send(value: response)
            }
        case .completed:
            if let pending = state.withLock({ $0.pendingRetry }) {
                scheduleRetry(after: pending.delay, reason: pending.reason)
            } else {
                observer.sendCompleted()
            }
        case .failed(let error):
            let (attempt, started, delivered, pending) = state.withLock { s in
                (s.attempt, s.started, s.delivered, s.pendingRetry)
            }
            let elapsed = elapsedTime(since: started)
            if let pending {
                // The retryable response's body broke off: it was going to be dropped anyway.
                scheduleRetry(after: pending.delay, reason: pending.reason)
            } else if !delivered,
                let delay = policy.delay(
                    after: .failure(error), attempt: attempt, method: request.method, elapsed: elapsed,
                    now: scheduler.currentDate)
            {
                scheduleRetry(after: delay, reason: .error(error))
            } else {
                observer.send(error: error)
            }
        case .interrupted:
            observer.sendInterrupted()
        }
    }

    private func elapsedTime(since start: Date) -> Duration {
        .timeInterval(max(0, scheduler.currentDate.timeIntervalSince(start)))
    }

    private func scheduleRetry(after delay: Duration, reason: RetryReason) {
        let next = state.withLock { $0.attempt + 1 }
        chain.report(.retried(RetryAttempt(attempt: next, reason: reason, delay: delay)))
        // A short wait can run out, and start the next attempt into `current`, before `schedule`
        // returns: hence the slot.
        guard let wait = current.freshSlot() else { return }
        wait.inner = scheduler.schedule(after: delay) { [self] in startAttempt() }
    }
}
