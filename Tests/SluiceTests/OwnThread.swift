import Foundation

/// Runs `work` on a thread of its own and waits for it without holding a thread of Swift's
/// cooperative pool.
///
/// The pool has one thread per core (two in CI): a test that blocks one of them (running a child
/// process, writing a large file, waiting on a semaphore) stalls every other test's awaits meanwhile,
/// and their time-bounded waits with them.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
