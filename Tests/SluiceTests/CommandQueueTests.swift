import Dispatch
import Glibc
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// The queue between the callers' threads and the transport's loop thread, with its real eventfd:
/// a command sent while the loop sleeps wakes it; one sent while it runs is taken before it
/// sleeps again, without touching the eventfd.
@Suite("Command queue wake-ups")
struct CommandQueueTests {
    /// Whether the queue's eventfd is readable now (what makes the loop's `poll` return).
    private func isSignalled(_ queue: CommandQueue) -> Bool {
        var descriptor = pollfd(fd: queue.wakeDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 1
    }

    @Test func aCommandSentWhileTheLoopRunsKeepsItAwakeWithoutAWrite() {
        let queue = CommandQueue()
        queue.send(.cancel(1))
        #expect(!isSignalled(queue))
        // The loop may not sleep with a command waiting; it takes it first.
        #expect(!queue.prepareToSleep())
        #expect(queue.takeCommands().count == 1)
        #expect(queue.prepareToSleep())
        queue.didWake()
        #expect(!isSignalled(queue))
    }

    @Test func commandsSentWhileTheLoopSleepsWakeItWithOneWrite() {
        let queue = CommandQueue()
        #expect(queue.prepareToSleep())
        queue.send(.cancel(1))
        queue.send(.cancel(2))
        #expect(isSignalled(queue))
        queue.didWake()
        queue.drainWakeups()
        // One write for both: the eventfd is clear after one read.
        #expect(!isSignalled(queue))
        #expect(queue.takeCommands().count == 2)
        // Awake again: a new command does not write.
        queue.send(.cancel(3))
        #expect(!isSignalled(queue))
        // The next sleep writes again for a command sent during it.
        #expect(!queue.prepareToSleep())
        #expect(queue.takeCommands().count == 1)
        #expect(queue.prepareToSleep())
        queue.send(.cancel(4))
        #expect(isSignalled(queue))
    }

    /// The loop's protocol run for real on two threads: a loop thread sleeping in `poll` and a
    /// sender on another thread; every command reaches the loop, and no sleep outlasts a command
    /// (a lost wake-up shows as a `poll` that runs into its timeout with commands waiting).
    @Test func aLoopSleepingInPollGetsEveryCommandFromAnotherThread() async {
        let queue = CommandQueue()
        let count = 2_000
        let (received, timedOut) = await withCheckedContinuation {
            (continuation: CheckedContinuation<(Int, Int), Never>) in
            DetachedThread.start(name: "test-loop") {
                var taken = 0
                var timedOut = 0
                var batch: [LoopCommand] = []
                while taken < count {
                    queue.takeAll(into: &batch)
                    taken += batch.count
                    batch.removeAll(keepingCapacity: true)
                    guard taken < count else { continue }
                    queue.sleep {
                        var descriptor = pollfd(fd: queue.wakeDescriptor, events: Int16(POLLIN), revents: 0)
                        if poll(&descriptor, 1, 2_000) == 0 { timedOut += 1 }
                        return descriptor.revents != 0
                    }
                }
                continuation.resume(returning: (taken, timedOut))
            }
            DispatchQueue.global().async {
                for index in 0..<count {
                    queue.send(.cancel(UInt64(index)))
                    if index % 7 == 0 { usleep(10) }
                }
            }
        }
        #expect(received == count)
        #expect(timedOut == 0)
    }
}

extension CommandQueue {
    /// Every command queued so far, taken as the loop takes them (tests only).
    func takeCommands() -> [LoopCommand] {
        var batch: [LoopCommand] = []
        takeAll(into: &batch)
        return batch
    }
}
