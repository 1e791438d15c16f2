import Dispatch
import SluiceSignals
import Synchronization
import Testing

/// A producer's `attemptMap` makes the state of its first start with the producer: these check that
/// no start inherits another's, and that a kept producer keeps nothing of a finished start.
@Suite("attemptMap's state made with the producer")
struct AttemptMapStageTests {
    private static func counting(to count: Int) -> SignalProducer<Int, TestError> {
        StageChecks.counting(to: count)
    }

    @Test func aFailedStartLeavesTheNextOneUntouched() {
        let failing = Atomic(true)
        let producer = Self.counting(to: 3).attemptMap { value throws(TestError) -> Int in
            if value == 2 && failing.load(ordering: .relaxed) { throw .other(value) }
            return value * 10
        }
        let first = EventRecorder<Int, TestError>()
        producer.start(first.observer)
        #expect(first.events == [.value(10), .failed(.other(2))])
        failing.store(false, ordering: .relaxed)
        let second = EventRecorder<Int, TestError>()
        producer.start(second.observer)
        #expect(second.events == [.value(10), .value(20), .value(30), .completed])
    }

    @Test func startsOnManyThreadsAtOnceEachGetTheirOwn() {
        StageChecks.startsOnManyThreadsAtOnceEachGetTheirOwn(
            Self.counting(to: 100).attemptMap { value throws(TestError) in value + 1 }, expected: Array(2...101))
    }

    @Test func aKeptProducerLetsGoOfAFinishedStartsObserver() {
        StageChecks.aKeptProducerLetsGoOfAFinishedStartsObserver(
            Self.counting(to: 2).attemptMap { value throws(TestError) in value })
    }

    @Test func aDisposedStartLetsGoOfItsObserverToo() {
        final class Witness: Sendable {}
        weak var weakWitness: Witness?
        let producer = SignalProducer<Int, TestError> { _, _ in }.attemptMap { value throws(TestError) in value }
        do {
            let witness = Witness()
            weakWitness = witness
            producer.start(Observer { _ in _ = witness }).dispose()
        }
        #expect(weakWitness == nil, "a disposed start's observer outlived the disposal")
        _ = producer
    }
}
