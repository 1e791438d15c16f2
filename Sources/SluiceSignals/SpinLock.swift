import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A lock made of one atomic flag, for state whose critical sections are a handful of instructions
/// and never run user code (the entries of a `CompositeDisposable`).
///
/// It needs no allocation and costs two atomic operations when uncontended, against a heap object
/// and two calls into pthreads for `Lock`. A waiter yields its CPU rather than spinning hot, so a
/// holder that was preempted gets to finish. The thread sanitizer understands it, since it is made
/// of atomics with acquiring and releasing order.
@usableFromInline
struct SpinLock: ~Copyable, @unchecked Sendable {
    // `@unchecked Sendable`: the flag is atomic; the lock guards nothing by itself.
    @usableFromInline let flag = Atomic<Bool>(false)

    @inlinable
    init() {}

    @inlinable
    func lock() {
        while !flag.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            sched_yield()
        }
    }

    @inlinable
    func unlock() {
        flag.store(false, ordering: .releasing)
    }
}
