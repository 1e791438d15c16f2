#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value guarded by a mutual-exclusion lock, built on `pthread_mutex_t`.
///
/// Sluice uses it instead of `Synchronization.Mutex` because, on Linux, a contended `Mutex` hands
/// ownership over inside the kernel (priority-inheritance futexes), where the thread sanitizer
/// cannot see it, so every correctly locked access shows up as a data race. The sanitizer
/// understands `pthread_mutex_lock`. Never run code that may take the same lock inside `withLock`.
///
/// `@unchecked Sendable`: the state is only reached through `withLock`, which holds the mutex.
public final class Lock<State>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Only touched with the mutex held, so the runtime's exclusivity checks would only add cost.
    @exclusivity(unchecked) @usableFromInline var state: State

    /// Creates a lock around an initial value.
    @inlinable
    public init(_ initial: State) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        state = initial
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
}
