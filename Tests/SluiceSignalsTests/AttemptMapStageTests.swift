import Dispatch
import SluiceSignals
import Synchronization
import Testing

/// A producer's `attemptMap` makes the state of its first start with the producer: these check that
/// no start inherits another's, and that a kept producer keeps nothing of a finished start.
@Suite("attemptMap's state made with the producer")
struct AttemptMapStageTests {
    /// Sends the values it is started with, then completes.
    private static func counting(to count: Int) -> SignalProducer<Int, TestError> {
        SignalProducer { observer, _ in
            for value in 1...count { observer.send(value: value) }
            observer.sendCompleted()
        }
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
        let producer = Self.counting(to: 100).attemptMap { value throws(TestError) in value + 1 }
        let recorders = (0..<16).map { _ in EventRecorder<Int, TestError>() }
        DispatchQueue.concurrentPerform(iterations: recorders.count) { index in
            producer.start(recorders[index].observer)
        }
        for recorder in recorders {
            #expect(recorder.values == Array(2...101))
            #expect(recorder.events.last == .completed)
        }
    }

    @Test func aKeptProducerLetsGoOfAFinishedStartsObserver() {
        final class Witness: Sendable {}
        weak var weakWitness: Witness?
        let producer = Self.counting(to: 2).attemptMap { value throws(TestError) in value }
        do {
            let witness = Witness()
            weakWitness = witness
            producer.start(Observer { _ in _ = witness })
        }
        #expect(weakWitness == nil, "the first start's observer outlived its terminal event")
        _ = producer
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
