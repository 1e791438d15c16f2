import FoundationEssentials

/// Runs actions somewhere: now, on a queue, or in virtual time.
public protocol Scheduler: Sendable {
    /// Runs `action` soon; returns a disposable that cancels it if it has not started yet.
    @discardableResult
    func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)?
}

/// A scheduler that can also run actions at a point in time.
///
/// Time-based operators (`delay`, `timeout`, `debounce`, `throttle`, `retry` with a delay) take a
/// `DateScheduler`, so tests drive them with a `TestScheduler` in virtual time instead of waiting.
public protocol DateScheduler: Scheduler {
    /// The scheduler's notion of now.
    var currentDate: Date { get }

    /// Runs `action` at `date` (at once if it has passed); returns a disposable that cancels it.
    @discardableResult
    func schedule(after date: Date, action: @escaping @Sendable () -> Void) -> (any Disposable)?
}

extension DateScheduler {
    /// Runs `action` after `delay` from now; returns a disposable that cancels it.
    @discardableResult
    public func schedule(after delay: Duration, action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        schedule(after: currentDate.addingTimeInterval(delay.timeInterval), action: action)
    }

    /// Runs `action` every `interval`, first after one interval; returns a disposable that stops it.
    @discardableResult
    public func schedule(every interval: Duration, action: @escaping @Sendable () -> Void) -> any Disposable {
        let repeating = SerialDisposable()
        let seconds = max(interval.timeInterval, 0.000_001)
        @Sendable func next(at date: Date) {
            repeating.inner = schedule(after: date) {
                action()
                next(at: date.addingTimeInterval(seconds))
            }
        }
        next(at: currentDate.addingTimeInterval(seconds))
        return repeating
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// A duration from a number of seconds; NaN is zero, and values beyond about ±292 years are
    /// clamped to that (a date from a server, say, must never crash the conversion).
    public static func timeInterval(_ seconds: TimeInterval) -> Duration {
        guard !seconds.isNaN else { return .zero }
        let limit = Double(Int64.max / 1_000_000_000 - 1)
        return .nanoseconds(Int64((min(max(seconds, -limit), limit) * 1e9).rounded()))
    }
}
