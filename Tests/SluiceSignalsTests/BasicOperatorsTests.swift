import SluiceSignals
import Testing

@Suite("Basic operators")
struct BasicOperatorsTests {
    /// Runs `build` on a pipe-based Signal and on an equivalent producer, and checks both.
    private func check<U: Sendable & Equatable>(
        _ inputs: [Event<Int, TestError>],
        signal build: (Signal<Int, TestError>) -> Signal<U, TestError>,
        producer buildProducer: (SignalProducer<Int, TestError>) -> SignalProducer<U, TestError>,
        expect expected: [Event<U, TestError>],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let viaSignal = EventRecorder<U, TestError>()
        build(signal).observe(viaSignal.observer)
        for event in inputs { input.send(event) }
        #expect(viaSignal.events == expected, "Signal", sourceLocation: sourceLocation)

        let source = SignalProducer<Int, TestError> { observer, _ in
            for event in inputs { observer.send(event) }
        }
        let viaProducer = EventRecorder<U, TestError>()
        buildProducer(source).start(viaProducer.observer)
        #expect(viaProducer.events == expected, "SignalProducer", sourceLocation: sourceLocation)
    }

    @Test func map() {
        check(
            [.value(1), .value(2), .completed], signal: { $0.map { $0 * 2 } }, producer: { $0.map { $0 * 2 } },
            expect: [.value(2), .value(4), .completed])
    }

    @Test func filterAndCompactMap() {
        check(
            [.value(1), .value(2), .value(3), .failed(.boom)],
            signal: { $0.filter { $0 != 2 } }, producer: { $0.filter { $0 != 2 } },
            expect: [.value(1), .value(3), .failed(.boom)])
        check(
            [.value(1), .value(2), .value(3), .completed],
            signal: { $0.compactMap { $0 % 2 == 1 ? "\($0)" : nil } },
            producer: { $0.compactMap { $0 % 2 == 1 ? "\($0)" : nil } },
            expect: [.value("1"), .value("3"), .completed])
    }

    @Test func attemptMapFailsOnceAndStops() {
        let transform: @Sendable (Int) throws(TestError) -> Int = { value throws(TestError) in
            if value == 2 { throw .other(value) }
            return value
        }
        check(
            [.value(1), .value(2), .value(3), .completed],
            signal: { $0.attemptMap(transform) }, producer: { $0.attemptMap(transform) },
            expect: [.value(1), .failed(.other(2))])
    }

    @Test func mapError() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let recorder = EventRecorder<Int, TestError>()
        signal.mapError { _ in TestError.other(7) }.observe(recorder.observer)
        input.send(error: .boom)
        #expect(recorder.events == [.failed(.other(7))])
        let viaProducer = EventRecorder<Int, TestError>()
        SignalProducer<Int, TestError>(error: .boom).mapError { _ in .other(8) }.start(viaProducer.observer)
        #expect(viaProducer.events == [.failed(.other(8))])
    }

    @Test func scanAndReduceAndCollect() {
        check(
            [.value(1), .value(2), .value(3), .completed],
            signal: { $0.scan(0, +) }, producer: { $0.scan(0, +) },
            expect: [.value(1), .value(3), .value(6), .completed])
        check(
            [.value(1), .value(2), .value(3), .completed],
            signal: { $0.collect() }, producer: { $0.collect() },
            expect: [.value([1, 2, 3]), .completed])
        check(
            [.completed], signal: { $0.collect() }, producer: { $0.collect() },
            expect: [.value([]), .completed])
        check(
            [.value(1), .value(2), .value(3), .completed],
            signal: { $0.collect(count: 2) }, producer: { $0.collect(count: 2) },
            expect: [.value([1, 2]), .value([3]), .completed])
        let sum = EventRecorder<Int, TestError>()
        SignalProducer<Int, TestError>(values: [1, 2, 3]).reduce(10, +).start(sum.observer)
        #expect(sum.events == [.value(16), .completed])
    }

    @Test func scanStateIsPerSubscription() {
        let producer = SignalProducer<Int, TestError>(values: [1, 1]).scan(0, +)
        let a = EventRecorder<Int, TestError>()
        let b = EventRecorder<Int, TestError>()
        producer.start(a.observer)
        producer.start(b.observer)
        #expect(a.values == [1, 2])
        #expect(b.values == [1, 2])
    }

    @Test func skipRepeats() {
        check(
            [.value(1), .value(1), .value(2), .value(2), .value(1), .completed],
            signal: { $0.skipRepeats() }, producer: { $0.skipRepeats() },
            expect: [.value(1), .value(2), .value(1), .completed])
    }

    @Test func takeAndSkip() {
        check(
            [.value(1), .value(2), .value(3), .completed],
            signal: { $0.take(first: 2) }, producer: { $0.take(first: 2) },
            expect: [.value(1), .value(2), .completed])
        check(
            [.value(1), .value(2)],
            signal: { $0.take(first: 0) }, producer: { $0.take(first: 0) },
            expect: [.completed])
        check(
            [.value(1), .value(2), .value(3), .value(1), .completed],
            signal: { $0.take(while: { $0 < 3 }) }, producer: { $0.take(while: { $0 < 3 }) },
            expect: [.value(1), .value(2), .completed])
        check(
            [.value(1), .value(2), .value(3), .completed],
            signal: { $0.skip(first: 2) }, producer: { $0.skip(first: 2) },
            expect: [.value(3), .completed])
        check(
            [.value(1), .value(2), .value(3), .value(1), .completed],
            signal: { $0.skip(while: { $0 < 3 }) }, producer: { $0.skip(while: { $0 < 3 }) },
            expect: [.value(3), .value(1), .completed])
    }

    @Test func takeDisposesTheWorkOfAProducer() {
        let ended = Locked(false)
        let sent = Locked(0)
        let producer = SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { ended.value = true }
            for i in 0..<100 where !lifetime.hasEnded {
                sent.add(1)
                observer.send(value: i)
            }
        }
        let recorder = EventRecorder<Int, Never>()
        producer.take(first: 3).start(recorder.observer)
        #expect(recorder.events == [.value(0), .value(1), .value(2), .completed])
        #expect(ended.value)
        #expect(sent.value == 3)
    }

    @Test func takeDetachesAViewFromItsSignal() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let recorder = EventRecorder<Int, Never>()
        signal.take(first: 1).observe(recorder.observer)
        input.send(value: 1)
        input.send(value: 2)
        #expect(recorder.events == [.value(1), .completed])
    }

    @Test func onRunsHooksInOrder() {
        let log = Locked<[String]>([])
        let producer = SignalProducer<Int, TestError>(values: [1]).on(
            starting: { log.withLock { $0.append("starting") } },
            started: { log.withLock { $0.append("started") } },
            event: { e in log.withLock { $0.append("event \(e)") } },
            value: { v in log.withLock { $0.append("value \(v)") } },
            completed: { log.withLock { $0.append("completed") } },
            terminated: { log.withLock { $0.append("terminated") } },
            disposed: { log.withLock { $0.append("disposed") } })
        producer.startWithValues { v in log.withLock { $0.append("observer \(v)") } }
        #expect(
            log.value == [
                "starting", "event value(1)", "value 1", "observer 1", "event completed", "completed",
                "terminated", "disposed", "started",
            ])
    }

    @Test func materializeAndDematerialize() {
        let recorder = EventRecorder<Event<Int, TestError>, Never>()
        SignalProducer<Int, TestError>(values: [1]).concat(SignalProducer(error: .boom))
            .materialize().start(recorder.observer)
        #expect(recorder.events == [.value(.value(1)), .value(.failed(.boom)), .completed])
        let roundTrip = EventRecorder<Int, TestError>()
        SignalProducer<Int, TestError>(values: [1, 2]).materialize().dematerialize().start(roundTrip.observer)
        #expect(roundTrip.events == [.value(1), .value(2), .completed])
    }

    @Test func concatThenAndPrefix() {
        let concat = EventRecorder<Int, TestError>()
        SignalProducer<Int, TestError>(values: [1, 2]).concat(SignalProducer(values: [3])).concat(value: 4)
            .prefix(value: 0).start(concat.observer)
        #expect(concat.events == [.value(0), .value(1), .value(2), .value(3), .value(4), .completed])

        let then = EventRecorder<String, TestError>()
        SignalProducer<Int, TestError>(values: [1, 2]).then(SignalProducer(value: "done")).start(then.observer)
        #expect(then.events == [.value("done"), .completed])

        let secondStarted = Locked(false)
        let second = SignalProducer<Int, TestError> { _, _ in secondStarted.value = true }
        let failed = EventRecorder<Int, TestError>()
        SignalProducer<Int, TestError>(error: .boom).concat(second).start(failed.observer)
        #expect(failed.events == [.failed(.boom)])
        #expect(!secondStarted.value)
    }

    @Test func concatReleasesTheFirstRunBeforeTheSecondEnds() {
        let firstEnded = Locked(false)
        let first = SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { firstEnded.value = true }
            observer.sendCompleted()
        }
        let disposable = first.concat(.never).start()
        #expect(firstEnded.value)
        disposable.dispose()
    }

    @Test func retryRestartsUpToCountAndForwardsTheLastFailure() {
        let attempts = Locked(0)
        let flaky = SignalProducer<Int, TestError> { observer, _ in
            let n = attempts.add(1)
            observer.send(value: n)
            if n < 3 { observer.send(error: .other(n)) } else { observer.sendCompleted() }
        }
        let recovered = EventRecorder<Int, TestError>()
        flaky.retry(upTo: 5).start(recovered.observer)
        #expect(recovered.events == [.value(1), .value(2), .value(3), .completed])

        attempts.value = 0
        let exhausted = EventRecorder<Int, TestError>()
        flaky.retry(upTo: 1).start(exhausted.observer)
        #expect(exhausted.events == [.value(1), .value(2), .failed(.other(2))])
    }

    @Test func retryWithDelaysRunsInVirtualTime() {
        let scheduler = TestScheduler()
        let attempts = Locked<[Double]>([])
        let failing = SignalProducer<Int, TestError> { observer, _ in
            attempts.withLock { $0.append(scheduler.currentDate.timeIntervalSinceReferenceDate) }
            observer.send(error: .boom)
        }
        let seenErrors = Locked<[Int]>([])
        let recorder = EventRecorder<Int, TestError>()
        failing.retry(on: scheduler) { attempt, _ in
            seenErrors.withLock { $0.append(attempt) }
            return attempt <= 3 ? .seconds(1 << (attempt - 1)) : nil
        }.start(recorder.observer)
        #expect(attempts.value == [0])
        scheduler.advance(by: .seconds(1))
        #expect(attempts.value == [0, 1])
        scheduler.advance(by: .seconds(2))
        #expect(attempts.value == [0, 1, 3])
        scheduler.advance(by: .seconds(4))
        #expect(attempts.value == [0, 1, 3, 7])
        #expect(recorder.events == [.failed(.boom)])
        #expect(seenErrors.value == [1, 2, 3, 4])
    }

    @Test func disposingDuringARetryDelayCancelsTheRestart() {
        let scheduler = TestScheduler()
        let attempts = Locked(0)
        let failing = SignalProducer<Int, TestError> { observer, _ in
            attempts.add(1)
            observer.send(error: .boom)
        }
        let recorder = EventRecorder<Int, TestError>()
        let disposable = failing.retry(upTo: 3, interval: .seconds(5), on: scheduler).start(recorder.observer)
        disposable.dispose()
        scheduler.run()
        #expect(attempts.value == 1)
        #expect(recorder.events == [.interrupted])
    }

    @Test func flatMapErrorReplacesTheFailure() {
        check(
            [.value(1), .failed(.boom)],
            signal: { $0.flatMapError { _ in SignalProducer(values: [8, 9]) } },
            producer: { $0.flatMapError { _ in SignalProducer(values: [8, 9]) } },
            expect: [.value(1), .value(8), .value(9), .completed])
    }
}

@Suite("lift")
struct LiftTests {
    @Test func aLiftedObserverTransformsEveryStartsEvents() {
        let source = SignalProducer<Int, TestError>(values: [1, 2, 3])
        let doubled = source.lift { (downstream: Observer<Int, TestError>, _) in
            Observer { event in
                if case .value(let n) = event { downstream.send(value: 2 * n) } else { downstream.send(event) }
            }
        }
        for _ in 0..<2 {
            let recorder = EventRecorder<Int, TestError>()
            doubled.start(recorder.observer)
            #expect(recorder.events == [.value(2), .value(4), .value(6), .completed])
        }
    }

    @Test func disposingALiftedProducerInterruptsTheSourceAndEndsTheLifetime() {
        let ended = EventRecorder<Int, Never>()
        let (signal, input) = Signal<Int, TestError>.pipe()
        let lifted = SignalProducer(signal).lift { (downstream: Observer<Int, TestError>, lifetime) in
            lifetime.observeEnded { ended.observer.send(value: 1) }
            return Observer { event in downstream.send(event) }
        }
        let recorder = EventRecorder<Int, TestError>()
        let disposable = lifted.start(recorder.observer)
        input.send(value: 7)
        disposable.dispose()
        input.send(value: 8)
        #expect(recorder.events == [.value(7), .interrupted])
        #expect(ended.events == [.value(1)])
    }
}
