import FoundationEssentials

/// One step in the life of a request, as `Client.events` and a request's own observers see it
/// (AFNetworking's task notifications, as values).
///
/// Every event names its task, so one observer can follow many requests at once.
public struct TaskEvent: Sendable {
    /// The task the event belongs to.
    public let taskID: TaskID
    /// The request as the user made it (before interceptors adapted it).
    public let request: Request
    /// What happened.
    public let kind: Kind

    /// Creates an event.
    public init(taskID: TaskID, request: Request, kind: Kind) {
        self.taskID = taskID
        self.request = request
        self.kind = kind
    }

    /// What happened to a task.
    ///
    /// The cases with large payloads are boxed (`indirect`): an event is copied to every observer
    /// of every task, and a few words copy far faster than a head or a completion inline.
    public enum Kind: Sendable {
        /// The task was started; nothing was sent yet.
        case created
        /// The transfer was resumed after a suspension.
        case resumed
        /// The transfer was suspended: no bytes move until it is resumed.
        case suspended
        /// The task was cancelled before it finished.
        case cancelled
        /// Bytes of the request body sent so far.
        case uploadProgress(TransferProgress)
        /// Bytes of the response body received so far.
        case downloadProgress(TransferProgress)
        /// The status line and headers of a response arrived (one per attempt and per redirect hop).
        indirect case responseReceived(ResponseHead)
        /// The retry interceptor will send the request again.
        indirect case retried(RetryAttempt)
        /// The redirect interceptor follows a redirect.
        indirect case redirected(RedirectHop)
        /// The request shares its transfer with identical requests in flight (see
        /// `CoalescingInterceptor`).
        case coalesced(CoalescedTransfer)
        /// The client's cache answered the request, validated a stored response, or missed
        /// (`Client.Configuration.cache`).
        case cache(CacheOutcome)
        /// The task finished, with its response or its error.
        indirect case completed(TaskCompletion)
        /// A resumed download dropped the bytes it had and starts over (see `DownloadRestart`).
        indirect case downloadRestarted(DownloadRestart)
    }
}

/// Identifies one started task; unique within the process.
public struct TaskID: Hashable, Sendable, CustomStringConvertible {
    /// The number, increasing in the order tasks were started.
    public let rawValue: UInt64

    /// Creates an identifier.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// `#` and the number.
    public var description: String { "#\(rawValue)" }
}

/// A retry about to happen: which attempt comes next, why, and after how long.
public struct RetryAttempt: Sendable {
    /// The number of the attempt that will be made (2 for the first retry).
    public let attempt: Int
    /// Why the previous attempt is retried.
    public let reason: RetryReason
    /// How long the retry waits before sending.
    public let delay: Duration

    /// Creates a retry record.
    public init(attempt: Int, reason: RetryReason, delay: Duration) {
        self.attempt = attempt
        self.reason = reason
        self.delay = delay
    }
}

/// Why an attempt was retried.
public enum RetryReason: Sendable, CustomStringConvertible {
    /// The server answered with a retryable status (503, 429…).
    case status(Int)
    /// The transfer failed before a response arrived.
    case error(SluiceError)
    /// The server answered 401 and the credential was refreshed.
    case unauthorized

    /// A short description, e.g. `status 503`.
    public var description: String {
        switch self {
        case .status(let code): return "status \(code)"
        case .error(let error): return "\(error.code)"
        case .unauthorized: return "401, credential refreshed"
        }
    }
}

/// A redirect being followed.
public struct RedirectHop: Sendable {
    /// The URL that answered with the redirect.
    public let from: URL
    /// The URL the next request goes to.
    public let to: URL
    /// The redirect's status (301, 302, 303, 307 or 308).
    public let status: Int
    /// The method of the next request (GET after a 303, for instance).
    public let method: HTTPMethod

    /// Creates a redirect record.
    public init(from: URL, to: URL, status: Int, method: HTTPMethod) {
        self.from = from
        self.to = to
        self.status = status
        self.method = method
    }
}

/// How a task ended: what AFNetworking's DidComplete notification carried.
public struct TaskCompletion: Sendable {
    /// The final response, if one arrived.
    public let response: Response?
    /// The error the task failed with: a transport error, or a serializer's error.
    public let error: SluiceError?
    /// The value the pipeline's serializer produced (`decode`, `json`, `string`…), if one ran.
    public let serializedValue: (any Sendable)?

    /// Creates a completion record.
    public init(response: Response?, error: SluiceError?, serializedValue: (any Sendable)? = nil) {
        self.response = response
        self.error = error
        self.serializedValue = serializedValue
    }

    /// The body, when it was collected in memory.
    public var body: Data? { response.flatMap { $0.fileURL == nil ? $0.body : nil } }
    /// The file the body was written to, for downloads.
    public var fileURL: URL? { response?.fileURL }
    /// Timings and sizes of the last transfer.
    public var metrics: TransferMetrics? { response?.metrics }
}

extension TaskEvent.Kind: CustomStringConvertible {
    /// A short description, e.g. `responseReceived 200` or `retried: attempt 2 after status 503, in 0.5 s`.
    public var description: String {
        switch self {
        case .created: return "created"
        case .resumed: return "resumed"
        case .suspended: return "suspended"
        case .cancelled: return "cancelled"
        case .uploadProgress(let p): return "uploadProgress \(p.completed)/\(p.expected.map { "\($0)" } ?? "?")"
        case .downloadProgress(let p): return "downloadProgress \(p.completed)/\(p.expected.map { "\($0)" } ?? "?")"
        case .responseReceived(let head): return "responseReceived \(head.status)"
        case .retried(let retry):
            return "retried: attempt \(retry.attempt) after \(retry.reason), in \(retry.delay.timeInterval) s"
        case .redirected(let hop): return "redirected: \(hop.status) \(hop.method.rawValue) \(hop.to.absoluteString)"
        case .coalesced(let shared): return "coalesced: \(shared.joined ? "joined" : "shares") transfer \(shared.id)"
        case .cache(let outcome): return "cache \(outcome)"
        case .downloadRestarted(let reason): return "downloadRestarted: \(reason)"
        case .completed(let completion):
            if let error = completion.error { return "completed: \(error.code)" }
            return "completed: \(completion.response?.status ?? 0)"
        }
    }
}

extension TaskEvent: CustomStringConvertible {
    /// The task and what happened, e.g. `#3 responseReceived 200`.
    public var description: String { "\(taskID) \(kind)" }
}
