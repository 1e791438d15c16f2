import Synchronization

/// Something that can be cancelled and release what it holds.
///
/// Disposing is idempotent and thread-safe: the first call does the work, later calls do nothing.
public protocol Disposable: AnyObject, Sendable {
    /// Whether `dispose()` has been called.
    var isDisposed: Bool { get }
    /// Cancels the work and releases its resources; safe to call more than once, from any thread.
    func dispose()
}

/// A disposable that runs a closure once, on the first `dispose()`, and then releases it.
public final class AnyDisposable: Disposable {
    private let action: Lock<(@Sendable () -> Void)?>
    private let disposed = Atomic<Bool>(false)

    /// Creates a disposable that runs `action` when it is first disposed.
    public init(_ action: @escaping @Sendable () -> Void) {
        self.action = Lock(action)
    }

    /// Creates a disposable that does nothing but remember that it was disposed.
    public init() {
        self.action = Lock(nil)
    }

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    /// Runs the action if this is the first call.
    public func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Take the closure out under the lock, run it outside: never hold a lock while running user code.
        let taken = action.withLock { slot -> (@Sendable () -> Void)? in
            defer { slot = nil }
            return slot
        }
        taken?()
    }
}
