import Dispatch
import SluiceSignals
import Synchronization
import Testing

/// `attempt`: a check that passes each accepted event on as it arrived, with the state of its first
/// start made with the producer (as `attemptMap`'s is).
@Suite("attempt: checked events passed on")
struct AttemptStageTests {
    /// Sends 1 through `count`, then completes.
    private static func counting(to count: Int) -> SignalProducer<Int, TestError> {
        SignalProducer { observer, _ in
            for value in 1...count { observer.send(value: value) }
            observer.sendCompleted()
        }
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
        let producer = Self.counting(to: 100).attempt { value throws(TestError) in
            if value > 100 { throw .other(value) }
        }
        let recorders = (0..<16).map { _ in EventRecorder<Int, TestError>() }
        DispatchQueue.concurrentPerform(iterations: recorders.count) { index in
            producer.start(recorders[index].observer)
        }
        for recorder in recorders {
            #expect(recorder.values == Array(1...100))
            #expect(recorder.events.last == .completed)
        }
    }

    @Test func aKeptProducerLetsGoOfAFinishedStartsObserver() {
        final class Witness: Sendable {}
        weak var weakWitness: Witness?
        let producer = Self.counting(to: 2).attempt { _ throws(TestError) in }
        do {
            let witness = Witness()
            weakWitness = witness
            producer.start(Observer { _ in _ = witness })
        }
        #expect(weakWitness == nil, "the first start's observer outlived its terminal event")
        _ = producer
    }
}
