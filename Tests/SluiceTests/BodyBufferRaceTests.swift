import Dispatch
import Glibc
import Synchronization
import Testing

@testable import Sluice

/// The body stream's buffer, driven from two threads at once as the transfer (adding chunks on the
/// loop thread) and the consumer (taking them) drive it: whatever the interleaving, the control
/// ends up suspended exactly when the buffer says the transfer is.
@Suite("Body buffer under races")
struct BodyBufferRaceTests {
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
            let arrived = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                // Both sides wait for each other, then act at once. The wait is bounded: if the
                // two iterations run one after the other on one thread, the first goes ahead alone
                // (that episode is simply not a race).
                arrived.add(1, ordering: .acquiringAndReleasing)
                var spins = 0
                while arrived.load(ordering: .acquiring) < 2 && spins < 20_000 {
                    spins += 1
                    if spins % 64 == 0 { sched_yield() }
                }
                if side == 0 { buffer.added(150) } else { buffer.taken(150) }
            }
            let bufferSuspended = buffer.state.withLock { $0.isSuspended }
            if bufferSuspended != control.isSuspended { mismatches.add(1, ordering: .relaxed) }
        }
        #expect(mismatches.load(ordering: .relaxed) == 0)
    }
}
