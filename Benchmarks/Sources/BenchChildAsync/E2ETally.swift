import BenchChild
import Dispatch
import Synchronization

/// The tally of one run whose operations finish on any thread: counts, the first failure, and the
/// signal that the last one is over.
public final class E2ETally: Sendable {
    private struct State {
        var started = 0
        var outcome = E2EOutcome()
        var isOver = false
    }

    private let total: Int
    private let state = Mutex(State())
    private let done = DispatchSemaphore(value: 0)

    /// A run of `total` operations.
    public init(total: Int) {
        self.total = total
        if total == 0 { state.withLock { $0.isOver = true } }
    }

    /// Claims the next operation to start; false when all have been claimed.
    public func claim() -> Bool {
        state.withLock { s in
            guard s.started < total else { return false }
            s.started += 1
            return true
        }
    }

    /// Records one finished operation; returns true if the caller should start another (and claims it).
    @discardableResult
    public func finish(failure: String? = nil) -> Bool {
        let (another, isLast) = state.withLock { s -> (Bool, Bool) in
            if let failure {
                s.outcome.failed += 1
                if s.outcome.firstFailure == nil { s.outcome.firstFailure = failure }
            } else {
                s.outcome.succeeded += 1
            }
            let another = s.started < total
            if another { s.started += 1 }
            let finished = s.outcome.succeeded + s.outcome.failed
            let isLast = finished == total && !s.isOver
            if isLast { s.isOver = true }
            return (another, isLast)
        }
        if isLast { done.signal() }
        return another
    }

    /// Blocks until every operation is over, or the child's deadline passes; returns the outcome.
    public func wait() -> E2EOutcome {
        let isOver = state.withLock { $0.isOver }
        if !isOver, done.wait(timeout: .now() + .seconds(E2EContext.deadlineSeconds - 10)) == .timedOut {
            var outcome = state.withLock { $0.outcome }
            outcome.firstFailure = outcome.firstFailure ?? "the run passed its deadline"
            return outcome
        }
        return state.withLock { $0.outcome }
    }
}
