import FoundationEssentials
import Synchronization

/// A scheduler in virtual time: nothing runs until the test advances the clock, so tests of
/// time-based behaviour (delays, timeouts, retry backoff) are exact and take no real time.
///
/// Actions scheduled for the same date run in the order they were scheduled. Actions run on the
/// thread that calls `advance` or `run`, outside the scheduler's lock, so they may schedule more.
public final class TestScheduler: DateScheduler {
    private struct Entry {
        let date: Date
        let sequence: UInt64
        let action: @Sendable () -> Void
        let cancelled: AnyDisposable
    }

    private struct State {
        var now: Date
        var entries: [Entry] = []
        var sequence: UInt64 = 0
    }

    private let state: Lock<State>

    /// Creates a test scheduler whose clock starts at `startDate`.
    public init(startDate: Date = Date(timeIntervalSinceReferenceDate: 0)) {
        state = Lock(State(now: startDate))
    }

    /// The virtual now.
    public var currentDate: Date { state.withLock { $0.now } }

    /// How many actions are waiting to run.
    public var pendingCount: Int { state.withLock { s in s.entries.filter { !$0.cancelled.isDisposed }.count } }

    /// Schedules `action` for the current virtual time; it runs on the next `advance` or `run`.
    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        schedule(after: currentDate, action: action)
    }

    /// Schedules `action` for `date` in virtual time.
    @discardableResult
    public func schedule(after date: Date, action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        let cancelled = AnyDisposable()
        state.withLock { s in
            let entry = Entry(date: max(date, s.now), sequence: s.sequence, action: action, cancelled: cancelled)
            s.sequence &+= 1
            s.entries.append(entry)
        }
        return cancelled
    }

    /// Advances the clock by `interval`, running every action that falls due, in date order.
    public func advance(by interval: Duration = .zero) {
        advance(to: currentDate.addingTimeInterval(interval.timeInterval))
    }

    /// Advances the clock to `date`, running every action that falls due, in date order.
    public func advance(to date: Date) {
        while let entry = popEntry(dueBy: date) {
            if !entry.cancelled.isDisposed { entry.action() }
        }
        state.withLock { s in s.now = max(s.now, date) }
    }

    /// Runs every scheduled action, including those they schedule, advancing the clock as needed.
    public func run() {
        while let next = state.withLock({ s in s.entries.map(\.date).min() }) {
            advance(to: next)
        }
    }

    private func popEntry(dueBy date: Date) -> Entry? {
        state.withLock { s -> Entry? in
            s.entries.removeAll { $0.cancelled.isDisposed }
            guard
                let index = s.entries.indices
                    .filter({ s.entries[$0].date <= date })
                    .min(by: {
                        (s.entries[$0].date, s.entries[$0].sequence) < (s.entries[$1].date, s.entries[$1].sequence)
                    })
            else { return nil }
            let entry = s.entries.remove(at: index)
            s.now = max(s.now, entry.date)
            return entry
        }
    }
}
