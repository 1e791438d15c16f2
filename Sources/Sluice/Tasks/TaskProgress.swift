import FoundationEssentials

/// How far a task's upload or download has come, and how fast it moves.
public struct TaskProgress: Sendable, Equatable {
    /// Bytes moved so far.
    public var completed: Int64
    /// Bytes expected in all, if known.
    public var expected: Int64?
    /// Bytes per second since the task started (zero until bytes move).
    public var bytesPerSecond: Double

    /// Creates a progress value.
    public init(completed: Int64 = 0, expected: Int64? = nil, bytesPerSecond: Double = 0) {
        self.completed = completed
        self.expected = expected
        self.bytesPerSecond = bytesPerSecond
    }

    /// The fraction done, from 0 to 1, when the total is known.
    public var fraction: Double? {
        guard let expected, expected > 0 else { return nil }
        return min(1, Double(completed) / Double(expected))
    }
}

/// Where a task is in its life.
public enum TaskState: Sendable, Equatable {
    /// Made, not yet resumed: nothing was sent.
    case created
    /// Moving bytes (or waiting for the server).
    case running
    /// Suspended: no bytes move until it is resumed.
    case suspended
    /// Finished with a response (any status).
    case completed
    /// Finished with an error.
    case failed
    /// Cancelled before it finished.
    case cancelled

    /// Whether the task has ended.
    public var isFinished: Bool { self == .completed || self == .failed || self == .cancelled }
}
