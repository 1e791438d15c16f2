import Dispatch
import SluiceSignals
import Synchronization
import Testing

/// `attempt`: a check that passes each accepted event on as it arrived, with the state of its first
/// start made with the producer (as `attemptMap`'s is).
@Suite("attempt: checked events passed on")
struct AttemptStageTests {
    private static func counting(to count: Int) -> SignalProducer<Int, TestError> {
        StageChecks.counting(to: count)
    }

    @Test func acceptedValuesGoOnUnchangedAndTheFirstRefusalEndsTheStream() {
        let checked = Mutex<[Int]>([])
        let producer = Self.counting(to: 4).attempt { value throws(TestError) in
            checked.withLock { $0.append(value) }
            if value == 3 { throw .other(value) }
        }
        let recorder = EventRecorder<Int, TestError>()
        producer.start(recorder.observer)
        #expect(recorder.events == [.value(1), .value(2), .failed(.other(3))])
        // Nothing after the refusal is checked or sent: the 4 and the completion are dropped.
        #expect(checked.withLock { $0 } == [1, 2, 3])
    }

    @Test func aRefusedStartLeavesTheNextOneUntouched() {
        let refusing = Atomic(true)
        let producer = Self.counting(to: 3).attempt { value throws(TestError) in
            if value == 2 && refusing.load(ordering: .relaxed) { throw .other(value) }
        }
        let first = EventRecorder<Int, TestError>()
        producer.start(first.observer)
        #expect(first.events == [.value(1), .failed(.other(2))])
        refusing.store(false, ordering: .relaxed)
        let second = EventRecorder<Int, TestError>()
        producer.start(second.observer)
        #expect(second.events == [.value(1), .value(2), .value(3), .completed])
    }

    @Test func startsOnManyThreadsAtOnceEachGetTheirOwn() {
        StageChecks.startsOnManyThreadsAtOnceEachGetTheirOwn(
            Self.counting(to: 100).attempt { value throws(TestError) in if value > 100 { throw .other(value) } },
            expected: Array(1...100))
    }

    @Test func aKeptProducerLetsGoOfAFinishedStartsObserver() {
        StageChecks.aKeptProducerLetsGoOfAFinishedStartsObserver(
            Self.counting(to: 2).attempt { _ throws(TestError) in })
    }
}
