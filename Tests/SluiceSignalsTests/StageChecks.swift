import Dispatch
import SluiceSignals
import Testing

/// Checks shared by the suites of the stages made with their producer (`attemptMap`'s, `attempt`'s).
enum StageChecks {
    /// Sends 1 through `count`, then completes.
    static func counting(to count: Int) -> SignalProducer<Int, TestError> {
        SignalProducer { observer, _ in
            for value in 1...count { observer.send(value: value) }
            observer.sendCompleted()
        }
    }

    /// Starts `producer` on 16 threads at once: each start must get `expected` and complete.
    static func startsOnManyThreadsAtOnceEachGetTheirOwn(_ producer: SignalProducer<Int, TestError>, expected: [Int]) {
        let recorders = (0..<16).map { _ in EventRecorder<Int, TestError>() }
        DispatchQueue.concurrentPerform(iterations: recorders.count) { index in
            producer.start(recorders[index].observer)
        }
        for recorder in recorders {
            #expect(recorder.values == expected)
            #expect(recorder.events.last == .completed)
        }
    }

    /// Starts `producer` once with an observer holding a witness: once the start has ended, the
    /// kept producer must hold nothing of it.
    static func aKeptProducerLetsGoOfAFinishedStartsObserver(_ producer: SignalProducer<Int, TestError>) {
        final class Witness: Sendable {}
        weak var weakWitness: Witness?
        do {
            let witness = Witness()
            weakWitness = witness
            producer.start(Observer { _ in _ = witness })
        }
        #expect(weakWitness == nil, "the first start's observer outlived its terminal event")
        _ = producer
    }
}
