/// Runs every action at once, on the calling thread.
public struct ImmediateScheduler: Scheduler {
    /// Creates the immediate scheduler.
    public init() {}

    /// Runs `action` now; returns nil since there is nothing left to cancel.
    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        action()
        return nil
    }
}
