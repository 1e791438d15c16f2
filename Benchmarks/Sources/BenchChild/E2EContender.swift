/// One client, made once per child, that can run any of its workloads.
public protocol E2EContender {
    /// Runs `count` operations of `workload` (with the context's `inFlight` at once) and blocks
    /// until all are over. Setup that a program does once (making the client or session) is done
    /// before, when the contender is made.
    func run(_ workload: E2EWorkload, count: Int) -> E2EOutcome
}

/// How one run went.
public struct E2EOutcome: Sendable {
    /// Operations that succeeded and whose results passed their checks.
    public var succeeded: Int
    /// Operations that failed or whose results were wrong.
    public var failed: Int
    /// The first failure, for the report.
    public var firstFailure: String?

    /// An outcome with these counts.
    public init(succeeded: Int = 0, failed: Int = 0, firstFailure: String? = nil) {
        self.succeeded = succeeded
        self.failed = failed
        self.firstFailure = firstFailure
    }
}
