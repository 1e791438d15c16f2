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
/// A `Lock` is a small value referring to one heap object that holds both the value and the mutex;
/// copies share them.
public struct Lock<State>: @unchecked Sendable {
    // `@unchecked Sendable`: the state is only reached through `withLock`, which holds the mutex.
    @usableFromInline let storage: LockStorage<State>

    /// Creates a lock around an initial value.
    @inlinable
    public init(_ initial: State) {
        storage = LockStorage.make(initial)
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        try storage.withLock(body)
    }
}

/// The heap object behind a `Lock`: the value as the header of a managed buffer whose one element
/// is the mutex, so both live in a single allocation at a stable address.
@usableFromInline
final class LockStorage<State>: ManagedBuffer<State, pthread_mutex_t> {
    @inlinable
    static func make(_ initial: State) -> LockStorage<State> {
        let buffer = create(minimumCapacity: 1) { _ in initial }
        let storage = unsafeDowncast(buffer, to: LockStorage<State>.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }
        return storage
    }

    @inlinable
    func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { state, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&state.pointee)
        }
    }

    @inlinable
    deinit {
        // The header (the value) is a stored property of ManagedBuffer and is destroyed with it;
        // only the element, the mutex, is ours to tear down.
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            _ = mutex.deinitialize(count: 1)
        }
    }
}
