import Dispatch
import Glibc
import SluiceTesting
import Synchronization
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// Suspension decided on two threads at once: whatever the interleaving, a transfer's control ends
/// up suspended exactly when its owner (a body stream's buffer, a task) says the transfer is. When
/// the control was told after the owner's lock was released, the two could disagree for good, and
/// a transfer stayed paused while nothing would ever resume it.
@Suite("Suspension under races")
struct SuspensionRaceTests {
    /// Runs `first` and `second` on two threads, started together as far as the threads allow (if
    /// both end up on one thread, the first goes ahead alone after a bounded wait).
    private func together(_ first: @Sendable () -> Void, _ second: @Sendable () -> Void) {
        let arrived = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 2) { side in
            arrived.add(1, ordering: .acquiringAndReleasing)
            var spins = 0
            while arrived.load(ordering: .acquiring) < 2 && spins < 20_000 {
                spins += 1
                if spins % 64 == 0 { sched_yield() }
            }
            if side == 0 { first() } else { second() }
        }
    }

    /// Each episode starts both sides together: the transfer adds more than the limit (and
    /// suspends), the consumer takes it all (and resumes if it saw the suspension). When the
    /// control was told after the buffer's lock was released, the consumer's resume could reach
    /// the control before the transfer's suspend; the control then stayed suspended with nothing
    /// buffered, and a real transfer stayed paused for good.
    @Test func theControlFollowsTheBufferWhateverTheInterleaving() {
        let episodes = 5_000
        let mismatches = Atomic<Int>(0)
        for _ in 0..<episodes {
            let control = TransferControl()
            let buffer = BodyBuffer(limit: 100, control: control)
            together({ buffer.added(150) }, { buffer.taken(150) })
            let bufferSuspended = buffer.state.withLock { $0.isSuspended }
            if bufferSuspended != control.isSuspended { mismatches.add(1, ordering: .relaxed) }
        }
        #expect(mismatches.load(ordering: .relaxed) == 0)
    }

    /// A running task suspended on one thread and resumed on another, 2,000 times: its `state`
    /// and its transfer's control agree at the end (a task that says it runs has its transfer
    /// running). The transport never answers, so every task stays in flight. Unlike the buffer's test
    /// this one did not catch the old order in three runs (the window between a `suspend()`'s
    /// decision and its telling the control is a few instructions, and a contended lock's waiter
    /// wakes later than that); it holds the task to the invariant under the thread sanitizer.
    @Test func aTaskSuspendedAndResumedOnTwoThreadsKeepsItsControlInStep() throws {
        let client = try Client(baseURL: "https://api.example.com/", transport: StubTransport(reply: .never))
        var disagreements = 0
        for _ in 0..<2_000 {
            let task = try client.task(.get, "slow")
            task.resume()
            together({ task.suspend() }, { task.resume() })
            let suspended = task.state.value == .suspended
            if suspended != task.control.isSuspended || (!suspended && task.state.value != .running) {
                disagreements += 1
            }
            task.cancel()
        }
        #expect(disagreements == 0)
    }
}
