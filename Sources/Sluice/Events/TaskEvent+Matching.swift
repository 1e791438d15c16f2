import FoundationEssentials

// Accessors for matching events without a `switch` or `if case` at every call site:
//
//     client.events.filter(\.kind.isTerminal).observeValues { event in
//         print(event.request.url, event.kind.completion?.response?.status ?? 0)
//     }

extension TaskEvent.Kind {
    /// Whether this is the last event of its task: `completed` or `cancelled` (nothing follows it).
    public var isTerminal: Bool {
        switch self {
        case .completed, .cancelled: return true
        default: return false
        }
    }

    /// The completion record, for `completed`.
    public var completion: TaskCompletion? {
        if case .completed(let completion) = self { return completion }
        return nil
    }

    /// The status line and headers, for `responseReceived`.
    public var responseHead: ResponseHead? {
        if case .responseReceived(let head) = self { return head }
        return nil
    }

    /// The progress, for `uploadProgress` and `downloadProgress`.
    public var progress: TransferProgress? {
        switch self {
        case .uploadProgress(let progress), .downloadProgress(let progress): return progress
        default: return nil
        }
    }

    /// The retry about to happen, for `retried`.
    public var retry: RetryAttempt? {
        if case .retried(let attempt) = self { return attempt }
        return nil
    }

    /// The redirect being followed, for `redirected`.
    public var redirect: RedirectHop? {
        if case .redirected(let hop) = self { return hop }
        return nil
    }

    /// The error a task failed with, for a `completed` that failed; `.cancelled` for `cancelled`.
    public var error: SluiceError? {
        switch self {
        case .completed(let completion): return completion.error
        case .cancelled: return SluiceError(.cancelled, "The task was cancelled.")
        default: return nil
        }
    }
}

extension TaskEvent {
    /// Whether this is the last event of its task (see `Kind.isTerminal`).
    public var isTerminal: Bool { kind.isTerminal }
}
