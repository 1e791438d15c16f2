import Dispatch
import FoundationEssentials

/// Runs actions on a `DispatchQueue`, and at points in wall-clock time.
public final class QueueScheduler: DateScheduler {
    /// The queue actions run on.
    public let queue: DispatchQueue

    /// Creates a scheduler on a new serial queue with the given quality of service.
    public init(qos: DispatchQoS = .default, name: String = "sluice.queue-scheduler") {
        self.queue = DispatchQueue(label: name, qos: qos)
    }

    /// Creates a scheduler on an existing queue.
    public init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// The current wall-clock time.
    public var currentDate: Date { Date() }

    /// Runs `action` on the queue; the returned disposable cancels it if it has not started.
    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        let cancelled = AnyDisposable()
        queue.async {
            if !cancelled.isDisposed { action() }
        }
        return cancelled
    }

    /// Runs `action` on the queue at `date`; the returned disposable cancels it.
    @discardableResult
    public func schedule(after date: Date, action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        let cancelled = AnyDisposable()
        let delay = max(date.timeIntervalSinceNow, 0)
        queue.asyncAfter(deadline: .now() + delay) {
            if !cancelled.isDisposed { action() }
        }
        return cancelled
    }
}
