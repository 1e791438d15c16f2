import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// When and how soon the retry interceptor sends a request again.
///
/// The defaults, and why:
/// - Only idempotent methods are retried (GET, HEAD, PUT, DELETE, OPTIONS, TRACE): RFC 9110 §9.2.2
///   says a client may repeat those automatically; a POST or PATCH could take effect twice.
/// - Statuses 408 (the server timed out waiting, RFC 9110 §15.5.9), 429 (too many requests, RFC 6585
///   §4), 500, 502, 503 and 504 (RFC 9110 §15.6): temporary by their definitions.
/// - Transport errors that happened before any response: cannot connect, connection lost, timed out.
///   After a response head has been delivered downstream, nothing is retried, so no body byte is
///   delivered twice.
/// - `Retry-After` (RFC 9110 §10.2.3), in seconds or as an HTTP-date, is honoured up to
///   `maxRetryAfter`: a huge value waits the cap, a garbage value falls back to the backoff.
/// - Otherwise exponential backoff with full jitter: a random wait between zero and
///   `min(maxDelay, baseDelay × 2^(attempt − 1))`, so many clients failing together spread out.
///
///     .retry(.exponentialBackoff(maxAttempts: 4, base: .milliseconds(200), cap: .seconds(10)))
public struct RetryPolicy: Sendable, Equatable {
    /// How the computed backoff is randomized.
    ///
    /// Equal when both are `none` or both `full`; two `custom` jitters are never equal, as
    /// closures cannot be compared (as with NaN, a policy with one is not equal to itself).
    public enum Jitter: Sendable, Equatable {
        /// No randomness: exactly the exponential backoff.
        case none
        /// A uniformly random wait between zero and the exponential backoff ("full jitter").
        case full
        /// A function of the exponential backoff, e.g. to make tests deterministic.
        case custom(@Sendable (Duration) -> Duration)

        /// Whether both are `none` or both `full`.
        public static func == (lhs: Jitter, rhs: Jitter) -> Bool {
            switch (lhs, rhs) {
            case (.none, .none), (.full, .full): return true
            default: return false
            }
        }
    }

    /// The most attempts in all, the first included (1 means no retries).
    public var maxAttempts: Int
    /// The backoff before the first retry, doubled before each later one.
    public var baseDelay: Duration
    /// The longest backoff.
    public var maxDelay: Duration
    /// How the backoff is randomized.
    public var jitter: Jitter
    /// No retry starts later than this after the first attempt started (nil: no deadline).
    public var deadline: Duration?
    /// The methods that are retried.
    public var methods: Set<HTTPMethod>
    /// The statuses that are retried.
    public var statuses: Set<Int>
    /// The error codes that are retried, when no response arrived.
    public var errorCodes: Set<SluiceError.Code>
    /// Whether `Retry-After` replaces the backoff when a response carries it.
    public var honorsRetryAfter: Bool
    /// The longest wait a `Retry-After` value can cause.
    public var maxRetryAfter: Duration

    /// The methods RFC 9110 §9.2.2 calls idempotent.
    public static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, .trace]
    /// 408, 429, 500, 502, 503 and 504.
    public static let transientStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// Cannot connect, connection lost, timed out.
    public static let transientErrors: Set<SluiceError.Code> = [.cannotConnect, .connectionLost, .timedOut]

    /// Creates a policy; every argument has the documented default.
    public init(
        maxAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(30),
        jitter: Jitter = .full,
        deadline: Duration? = nil,
        methods: Set<HTTPMethod> = RetryPolicy.idempotentMethods,
        statuses: Set<Int> = RetryPolicy.transientStatuses,
        errorCodes: Set<SluiceError.Code> = RetryPolicy.transientErrors,
        honorsRetryAfter: Bool = true,
        maxRetryAfter: Duration = .seconds(60)
    ) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.deadline = deadline
        self.methods = methods
        self.statuses = statuses
        self.errorCodes = errorCodes
        self.honorsRetryAfter = honorsRetryAfter
        self.maxRetryAfter = maxRetryAfter
    }

    /// Exponential backoff with full jitter and the other defaults.
    public static func exponentialBackoff(
        maxAttempts: Int = 3, base: Duration = .milliseconds(500), cap: Duration = .seconds(30)
    ) -> RetryPolicy {
        RetryPolicy(maxAttempts: maxAttempts, baseDelay: base, maxDelay: cap)
    }

    /// The default policy: three attempts, exponential backoff from 0.5 s with full jitter.
    public static let `default` = RetryPolicy()

    /// One attempt, no retries: turns retrying off for one request
    /// (`request.options.retryPolicy = .never`).
    public static let never = RetryPolicy(maxAttempts: 1)

    /// What ended an attempt, as the policy judges it.
    public enum Outcome: Sendable {
        /// A response arrived with this head.
        case response(ResponseHead)
        /// The attempt failed before a response arrived.
        case failure(SluiceError)
    }

    /// How long to wait before retrying after `attempt` attempts ended with `outcome`, or nil to
    /// stop. `elapsed` is the time since the first attempt started; `now` dates `Retry-After`.
    public func delay(
        after outcome: Outcome, attempt: Int, method: HTTPMethod, elapsed: Duration = .zero, now: Date = Date()
    ) -> Duration? {
        guard attempt < maxAttempts, methods.contains(method) else { return nil }
        let wait: Duration
        switch outcome {
        case .response(let head):
            guard statuses.contains(head.status) else { return nil }
            if honorsRetryAfter,
                let retryAfter = head.headers["Retry-After"].flatMap({ RetryAfter.delay($0, now: now) })
            {
                wait = min(retryAfter, maxRetryAfter)
            } else {
                wait = backoff(afterAttempt: attempt)
            }
        case .failure(let error):
            guard errorCodes.contains(error.code) else { return nil }
            wait = backoff(afterAttempt: attempt)
        }
        if let deadline, elapsed + wait > deadline { return nil }
        return wait
    }

    /// The jittered exponential backoff after `attempt` attempts (1 for the first retry's wait).
    public func backoff(afterAttempt attempt: Int) -> Duration {
        let exponent = Double(max(0, attempt - 1))
        let seconds = min(maxDelay.timeInterval, baseDelay.timeInterval * pow(2, min(exponent, 62)))
        let ceiling = Duration.timeInterval(max(0, seconds))
        switch jitter {
        case .none: return ceiling
        case .full: return .timeInterval(Double.random(in: 0...ceiling.timeInterval))
        case .custom(let transform): return transform(ceiling)
        }
    }
}
