import Dispatch
import Foundation
import SluiceSignals
import Testing

@Suite("SignalProducer contract")
struct SignalProducerContractTests {
    @Test func nothingRunsBeforeStartAndEveryStartRunsAfresh() {
        let starts = Locked(0)
        let producer = SignalProducer<Int, Never> { observer, _ in
            let n = starts.add(1)
            observer.send(value: n)
            observer.sendCompleted()
        }
        let mapped = producer.map { $0 * 10 }
        #expect(starts.value == 0)
        let first = EventRecorder<Int, Never>()
        let second = EventRecorder<Int, Never>()
        mapped.start(first.observer)
        mapped.start(second.observer)
        #expect(starts.value == 2)
        #expect(first.events == [.value(10), .completed])
        #expect(second.events == [.value(20), .completed])
    }

    @Test func disposingInterruptsAndEndsTheLifetimeOnce() {
        let cleanups = Locked(0)
        let producer = SignalProducer<Int, TestError> { observer, lifetime in
            observer.send(value: 1)
            lifetime.observeEnded { cleanups.add(1) }
        }
        let recorder = EventRecorder<Int, TestError>()
        let disposable = producer.map { $0 + 1 }.start(recorder.observer)
        disposable.dispose()
        disposable.dispose()
        #expect(recorder.events == [.value(2), .interrupted])
        #expect(cleanups.value == 1)
        #expect(disposable.isDisposed)
    }

    @Test func aTerminalEventEndsTheLifetimeAndReleasesTheObserver() {
        let ended = Locked(false)
        let input = Locked<Observer<Int, Never>?>(nil)
        let producer = SignalProducer<Int, Never> { observer, lifetime in
            input.value = observer
            lifetime.observeEnded { ended.value = true }
        }
        weak var weakCanary: Canary?
        let disposable: any Disposable = {
            let canary = Canary()
            weakCanary = canary
            return producer.map { $0 }.startWithValues { _ in withExtendedLifetime(canary) {} }
        }()
        #expect(weakCanary != nil)
        input.value?.sendCompleted()
        #expect(ended.value)
        #expect(weakCanary == nil)
        // The work still holds its observer; sending into it is harmless.
        input.value?.send(value: 1)
        #expect(disposable.isDisposed)
    }

    @Test func disposingReleasesOperatorClosuresAndTheObserver() {
        weak var weakCanary: Canary?
        let disposable: any Disposable = {
            let canary = Canary()
            weakCanary = canary
            return SignalProducer<Int, Never>.never
                .map { value in withExtendedLifetime(canary) { value } }
                .start()
        }()
        #expect(weakCanary != nil)
        disposable.dispose()
        #expect(weakCanary == nil)
    }

    @Test func sendsFromManyThreadsAreSerialAndGrammatical() {
        let threads = 6
        let perThread = 5_000
        let producer = SignalProducer<Int, Never> { observer, _ in
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                for i in 0..<perThread { observer.send(value: i) }
            }
            observer.sendCompleted()
            observer.send(value: -1)
        }
        let inside = Locked(false)
        let overlaps = Locked(0)
        let recorder = EventRecorder<Int, Never>()
        producer.map { $0 }.start { event in
            if inside.exchange(true) { overlaps.add(1) }
            recorder.record(event)
            inside.value = false
        }
        #expect(recorder.waitForTerminal())
        #expect(overlaps.value == 0)
        #expect(recorder.values.count == threads * perThread)
        #expect(recorder.events.last == .completed)
        #expect(recorder.terminalCount == 1)
    }

    @Test func disposingFromAnotherThreadWhileSendingGivesExactlyOneInterrupted() {
        for _ in 0..<100 {
            let producer = SignalProducer<Int, Never> { observer, lifetime in
                DispatchQueue.global().async {
                    var i = 0
                    // Bounded so that a disposal the loaded machine runs late costs milliseconds,
                    // not a second: this test holds one of the few threads every other test needs.
                    while !lifetime.hasEnded, i < 50_000 {
                        observer.send(value: i)
                        i += 1
                    }
                }
            }
            let recorder = EventRecorder<Int, Never>()
            let disposable = producer.start(recorder.observer)
            DispatchQueue.global().async { disposable.dispose() }
            #expect(recorder.waitForTerminal())
            usleep(200)
            #expect(recorder.events.last == .interrupted)
            #expect(recorder.terminalCount == 1)
        }
    }

    @Test func convenienceProducers() {
        let values = EventRecorder<Int, TestError>()
        SignalProducer<Int, TestError>(values: [1, 2, 3]).start(values.observer)
        #expect(values.events == [.value(1), .value(2), .value(3), .completed])

        let failed = EventRecorder<Int, TestError>()
        SignalProducer<Int, TestError>(error: .boom).start(failed.observer)
        #expect(failed.events == [.failed(.boom)])

        let result = EventRecorder<Int, TestError>()
        SignalProducer<Int, TestError>(result: .success(5)).start(result.observer)
        #expect(result.events == [.value(5), .completed])

        let empty = EventRecorder<Int, TestError>()
        SignalProducer<Int, TestError>.empty.start(empty.observer)
        #expect(empty.events == [.completed])

        let calls = Locked(0)
        let deferred = SignalProducer<Int, TestError>(resultOf: { .success(calls.add(1)) })
        #expect(calls.value == 0)
        deferred.start()
        deferred.start()
        #expect(calls.value == 2)
    }

    @Test func producerFromSignalObservesOnStart() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let producer = SignalProducer(signal)
        input.send(value: 1)
        let recorder = EventRecorder<Int, Never>()
        let disposable = producer.start(recorder.observer)
        input.send(value: 2)
        disposable.dispose()
        input.send(value: 3)
        #expect(recorder.events == [.value(2), .interrupted])
    }

    @Test func startObserverVariants() {
        let values = Locked<[Int]>([])
        SignalProducer<Int, TestError>(values: [1, 2]).startWithValues { v in values.withLock { $0.append(v) } }
        #expect(values.value == [1, 2])
        let results = Locked<[Result<Int, TestError>]>([])
        SignalProducer<Int, TestError>(error: .boom).startWithResult { r in results.withLock { $0.append(r) } }
        #expect(results.value == [.failure(.boom)])
        let completed = Locked(false)
        SignalProducer<Int, TestError>.empty.startWithCompleted { completed.value = true }
        #expect(completed.value)
        let interrupted = Locked(false)
        SignalProducer<Int, TestError>.never.startWithInterrupted { interrupted.value = true }.dispose()
        #expect(interrupted.value)
        let failure = Locked<TestError?>(nil)
        SignalProducer<Int, TestError>(error: .other(2)).startWithFailed { failure.value = $0 }
        #expect(failure.value == .other(2))
    }

    /// A producer whose handler sends straight into the sink (no gate): `events`, then more after
    /// the first terminal event, which the sink itself must drop.
    private static func unguarded(_ events: [Event<Int, TestError>]) -> SignalProducer<Int, TestError> {
        SignalProducer.serial { observer, _ in
            for event in events { observer.send(event) }
        }
    }

    @Test func eachStartVariantGetsItsKindOfEventOnceAndNothingAfterTheEnd() {
        let afterEnd: [Event<Int, TestError>] = [.value(9), .failed(.boom), .completed, .interrupted]
        let completing = Self.unguarded([.value(1), .value(2), .completed] + afterEnd)
        let failing = Self.unguarded([.value(1), .failed(.other(3))] + afterEnd)
        let interrupting = Self.unguarded([.value(1), .interrupted] + afterEnd)

        let events = Locked<[Event<Int, TestError>]>([])
        completing.start { event in events.withLock { $0.append(event) } }
        #expect(events.value == [.value(1), .value(2), .completed])

        let observed = EventRecorder<Int, TestError>()
        failing.start(observed.observer)
        #expect(observed.events == [.value(1), .failed(.other(3))])

        let values = Locked<[Int]>([])
        interrupting.startWithValues { value in values.withLock { $0.append(value) } }
        #expect(values.value == [1])

        let results = Locked<[Result<Int, TestError>]>([])
        for producer in [completing, failing, interrupting] {
            producer.startWithResult { result in results.withLock { $0.append(result) } }
        }
        #expect(results.value == [.success(1), .success(2), .success(1), .failure(.other(3)), .success(1)])

        let failures = Locked<[TestError]>([])
        let completions = Locked(0)
        let interruptions = Locked(0)
        for producer in [completing, failing, interrupting] {
            producer.startWithFailed { error in failures.withLock { $0.append(error) } }
            producer.startWithCompleted { completions.withLock { $0 += 1 } }
            producer.startWithInterrupted { interruptions.withLock { $0 += 1 } }
        }
        #expect(failures.value == [.other(3)])
        #expect(completions.value == 1)
        #expect(interruptions.value == 1)
    }

    @Test func aTerminalClosureRunsBeforeTheSubscriptionEnds() {
        let order = Locked<[String]>([])
        let producer = SignalProducer<Int, TestError>.serial { observer, lifetime in
            lifetime.observeEnded { order.withLock { $0.append("ended") } }
            observer.sendCompleted()
        }
        producer.startWithCompleted { order.withLock { $0.append("completed") } }
        #expect(order.value == ["completed", "ended"])
        // Disposing after the end does not interrupt.
        let interrupted = Locked(0)
        SignalProducer<Int, TestError>(value: 1).startWithInterrupted { interrupted.withLock { $0 += 1 } }.dispose()
        #expect(interrupted.value == 0)
    }
}
