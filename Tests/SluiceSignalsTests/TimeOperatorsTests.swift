import Dispatch
import Foundation
import SluiceSignals
import Synchronization
import Testing

/// The failure of the time-operator tests.
private enum TimeTestError: Error, Equatable {
    case timedOut
    case boom
}

/// An event and the virtual time (seconds since the scheduler's start) at which it arrived.
private struct Stamped: Equatable, Sendable, CustomStringConvertible {
    let time: Double
    let event: Event<Int, TimeTestError>

    var description: String { "\(event)@\(time)" }
}

/// Shorthand for an expected event at a virtual time.
private func at(_ time: Double, _ event: Event<Int, TimeTestError>) -> Stamped {
    Stamped(time: time, event: event)
}

/// Records events from any thread, stamped with the test scheduler's virtual time.
private final class TimeTestRecorder: Sendable {
    private let clock: TestScheduler?
    private let storage = Lock<[Stamped]>([])
    private let terminated = DispatchSemaphore(value: 0)

    init(clock: TestScheduler? = nil) {
        self.clock = clock
    }

    var observer: Observer<Int, TimeTestError> {
        Observer { event in self.record(event) }
    }

    func record(_ event: Event<Int, TimeTestError>) {
        let time = clock?.currentDate.timeIntervalSinceReferenceDate ?? 0
        storage.withLock { $0.append(Stamped(time: time, event: event)) }
        if event.isTerminating { terminated.signal() }
    }

    var stamped: [Stamped] { storage.withLock { $0 } }
    var events: [Event<Int, TimeTestError>] { stamped.map(\.event) }
    var values: [Int] { events.compactMap(\.value) }

    /// Waits, at most `seconds`, for a terminal event; returns false on timeout.
    func waitForTerminal(seconds: Double = 30) -> Bool {
        if events.contains(where: \.isTerminating) { return true }
        return terminated.wait(timeout: .now() + seconds) == .success
    }
}

/// A lock-guarded counter for the time-operator tests.
private final class TimeTestCounter: Sendable {
    private let storage = Lock(0)

    var value: Int { storage.withLock { $0 } }

    @discardableResult
    func increment() -> Int {
        storage.withLock {
            $0 += 1
            return $0
        }
    }

    func decrement() { storage.withLock { $0 -= 1 } }
}

/// Checks that deliveries never overlap: counts the observers running at once, keeps the maximum.
private final class OverlapProbe: Sendable {
    private let running = TimeTestCounter()
    private let maximum = Lock(0)

    func enter() {
        let now = running.increment()
        maximum.withLock { $0 = max($0, now) }
    }

    func leave() { running.decrement() }

    var maximumSeen: Int { maximum.withLock { $0 } }
}

/// A producer that sends `values` at once and then never terminates by itself; `ended` counts
/// the ends of its work (interruption).
private func openProducer(
    _ values: [Int], ended: TimeTestCounter = TimeTestCounter()
) -> SignalProducer<Int, TimeTestError> {
    SignalProducer { observer, lifetime in
        lifetime.observeEnded { ended.increment() }
        for value in values { observer.send(value: value) }
    }
}

/// A little work that widens the window in which concurrent deliveries would overlap.
private func spin() -> Int {
    var sum = 0
    for i in 0..<200 { sum &+= i &* i }
    return sum
}

@Suite("Time operators")
struct TimeOperatorsTests {
    // MARK: timeout

    @Test func timeoutFailsAProducerAtTheDeadlineAndInterruptsTheWork() {
        let scheduler = TestScheduler()
        let recorder = TimeTestRecorder(clock: scheduler)
        let ended = TimeTestCounter()
        openProducer([1], ended: ended)
            .timeout(after: .seconds(2), raising: .timedOut, on: scheduler)
            .start(recorder.observer)
        scheduler.advance(by: .milliseconds(1500))
        #expect(recorder.stamped == [at(0, .value(1))])
        #expect(ended.value == 0)
        scheduler.advance(by: .milliseconds(500))
        #expect(recorder.stamped == [at(0, .value(1)), at(2, .failed(.timedOut))])
        #expect(ended.value == 1)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func timeoutCancelsItsTimerWhenTheProducerTerminatesInTime() {
        let scheduler = TestScheduler()
        let recorder = TimeTestRecorder(clock: scheduler)
        SignalProducer<Int, TimeTestError>(value: 7)
            .delay(.seconds(1), on: scheduler)
            .timeout(after: .seconds(2), raising: .timedOut, on: scheduler)
            .start(recorder.observer)
        #expect(scheduler.pendingCount == 2)  // the delay's timer and the timeout's
        scheduler.advance(by: .seconds(1))
        #expect(recorder.stamped == [at(1, .value(7)), at(1, .completed)])
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(5))
        #expect(recorder.stamped == [at(1, .value(7)), at(1, .completed)])
    }

    @Test func timeoutForwardsAnUpstreamFailureAndCancelsItsTimer() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        signal.timeout(after: .seconds(2), raising: .timedOut, on: scheduler).observe(recorder.observer)
        scheduler.advance(by: .seconds(1))
        input.send(error: .boom)
        #expect(recorder.stamped == [at(1, .failed(.boom))])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func disposingATimedOutProducerCancelsTheTimer() {
        let scheduler = TestScheduler()
        let recorder = TimeTestRecorder(clock: scheduler)
        let ended = TimeTestCounter()
        let disposable = openProducer([], ended: ended)
            .timeout(after: .seconds(2), raising: .timedOut, on: scheduler)
            .start(recorder.observer)
        scheduler.advance(by: .milliseconds(500))
        disposable.dispose()
        #expect(recorder.stamped == [at(0.5, .interrupted)])
        #expect(ended.value == 1)
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(5))
        #expect(recorder.stamped == [at(0.5, .interrupted)])
    }

    @Test func timeoutOnASignalCountsFromEachObservation() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let timed = signal.timeout(after: .seconds(2), raising: .timedOut, on: scheduler)
        let first = TimeTestRecorder(clock: scheduler)
        let second = TimeTestRecorder(clock: scheduler)
        timed.observe(first.observer)
        scheduler.advance(by: .seconds(1))
        timed.observe(second.observer)
        input.send(value: 1)
        scheduler.advance(by: .seconds(1))
        #expect(first.stamped == [at(1, .value(1)), at(2, .failed(.timedOut))])
        #expect(second.stamped == [at(1, .value(1))])
        input.send(value: 2)
        scheduler.advance(by: .seconds(1))
        #expect(first.stamped == [at(1, .value(1)), at(2, .failed(.timedOut))])
        #expect(second.stamped == [at(1, .value(1)), at(2, .value(2)), at(3, .failed(.timedOut))])
        #expect(scheduler.pendingCount == 0)
    }

    // MARK: delay

    @Test func delayShiftsValuesAndCompletionOfASignal() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        signal.delay(.seconds(2), on: scheduler).observe(recorder.observer)
        input.send(value: 1)
        scheduler.advance(by: .milliseconds(500))
        input.send(value: 2)
        scheduler.advance(by: .milliseconds(500))
        input.sendCompleted()
        scheduler.advance(by: .milliseconds(1500))  // t = 2.5
        #expect(recorder.stamped == [at(2, .value(1)), at(2.5, .value(2))])
        scheduler.advance(by: .seconds(10))
        #expect(recorder.stamped == [at(2, .value(1)), at(2.5, .value(2)), at(3, .completed)])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func delayShiftsAFailureToo() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        signal.delay(.seconds(1), on: scheduler).observe(recorder.observer)
        input.send(value: 1)
        scheduler.advance(by: .milliseconds(250))
        input.send(error: .boom)
        #expect(recorder.stamped.isEmpty)
        scheduler.advance(by: .seconds(2))
        #expect(recorder.stamped == [at(1, .value(1)), at(1.25, .failed(.boom))])
    }

    @Test func delayForwardsInterruptionAtOnceAndDropsWaitingEvents() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        signal.delay(.seconds(2), on: scheduler).observe(recorder.observer)
        input.send(value: 1)
        scheduler.advance(by: .seconds(1))
        input.sendInterrupted()
        #expect(recorder.stamped == [at(1, .interrupted)])
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(5))
        #expect(recorder.stamped == [at(1, .interrupted)])
    }

    @Test func delayKeepsOneTimerHowEverManyEventsWait() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        signal.delay(.seconds(10), on: scheduler).observe(recorder.observer)
        for value in 0..<30 {  // the last one is sent at 7.25, before the first falls due
            input.send(value: value)
            scheduler.advance(by: .milliseconds(250))
        }
        #expect(scheduler.pendingCount == 1)
        #expect(recorder.values.isEmpty)
        scheduler.advance(by: .seconds(20))
        #expect(recorder.stamped == (0..<30).map { at(10 + Double($0) * 0.25, .value($0)) })
        #expect(scheduler.pendingCount == 0)
    }

    @Test func delayOfAProducerSendsEverythingAfterTheInterval() {
        let scheduler = TestScheduler()
        let recorder = TimeTestRecorder(clock: scheduler)
        SignalProducer<Int, TimeTestError>(values: [1, 2, 3])
            .delay(.seconds(1), on: scheduler)
            .start(recorder.observer)
        scheduler.advance(by: .milliseconds(750))
        #expect(recorder.stamped.isEmpty)
        scheduler.advance(by: .milliseconds(250))
        #expect(recorder.stamped == [at(1, .value(1)), at(1, .value(2)), at(1, .value(3)), at(1, .completed)])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func disposingADelayedProducerCancelsWaitingEvents() {
        let scheduler = TestScheduler()
        let recorder = TimeTestRecorder(clock: scheduler)
        let ended = TimeTestCounter()
        let disposable = openProducer([1, 2], ended: ended)
            .delay(.seconds(1), on: scheduler)
            .start(recorder.observer)
        scheduler.advance(by: .milliseconds(500))
        disposable.dispose()
        #expect(recorder.stamped == [at(0.5, .interrupted)])
        #expect(ended.value == 1)
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(5))
        #expect(recorder.stamped == [at(0.5, .interrupted)])
    }

    @Test func disposingADelayedSignalObservationDeliversNoMoreValues() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        let observation = signal.delay(.seconds(1), on: scheduler).observe(recorder.observer)
        input.send(value: 1)
        scheduler.advance(by: .milliseconds(500))
        observation?.dispose()
        input.send(value: 2)
        scheduler.advance(by: .seconds(5))
        #expect(recorder.values.isEmpty)
        #expect(recorder.events.filter(\.isTerminating).count <= 1)
        #expect(scheduler.pendingCount == 0)
    }

    // MARK: debounce

    @Test func debounceSendsTheLatestValueAfterAQuietInterval() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        signal.debounce(.seconds(1), on: scheduler).observe(recorder.observer)
        input.send(value: 1)
        scheduler.advance(by: .milliseconds(500))
        input.send(value: 2)
        scheduler.advance(by: .milliseconds(250))
        input.send(value: 3)  // t = 0.75: due at 1.75
        scheduler.advance(by: .milliseconds(750))  // t = 1.5
        #expect(recorder.stamped.isEmpty)
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: .milliseconds(250))
        #expect(recorder.stamped == [at(1.75, .value(3))])
        scheduler.advance(by: .milliseconds(1250))  // t = 3
        input.send(value: 4)
        scheduler.advance(by: .seconds(5))
        #expect(recorder.stamped == [at(1.75, .value(3)), at(4, .value(4))])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func debounceSendsTheWaitingValueThenCompletes() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        signal.debounce(.seconds(1), on: scheduler).observe(recorder.observer)
        input.send(value: 1)
        scheduler.advance(by: .milliseconds(500))
        input.sendCompleted()
        #expect(recorder.stamped == [at(0.5, .value(1)), at(0.5, .completed)])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func debounceCompletesWithoutAValueWhenNoneIsWaiting() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        signal.debounce(.seconds(1), on: scheduler).observe(recorder.observer)
        input.send(value: 1)
        scheduler.advance(by: .seconds(2))
        input.sendCompleted()
        #expect(recorder.stamped == [at(1, .value(1)), at(2, .completed)])
    }

    @Test func debounceForwardsFailureAndInterruptionAtOnceDroppingTheWaitingValue() {
        for terminal in [Event<Int, TimeTestError>.failed(.boom), .interrupted] {
            let scheduler = TestScheduler()
            let (signal, input) = Signal<Int, TimeTestError>.pipe()
            let recorder = TimeTestRecorder(clock: scheduler)
            signal.debounce(.seconds(1), on: scheduler).observe(recorder.observer)
            input.send(value: 1)
            scheduler.advance(by: .milliseconds(500))
            input.send(terminal)
            #expect(recorder.stamped == [at(0.5, terminal)])
            #expect(scheduler.pendingCount == 0)
            scheduler.advance(by: .seconds(5))
            #expect(recorder.stamped == [at(0.5, terminal)])
        }
    }

    @Test func debounceOfAProducerKeepsTheLastValue() {
        let scheduler = TestScheduler()
        let recorder = TimeTestRecorder(clock: scheduler)
        SignalProducer<Int, TimeTestError>(values: [1, 2, 3])
            .debounce(.seconds(1), on: scheduler)
            .start(recorder.observer)
        #expect(recorder.stamped == [at(0, .value(3)), at(0, .completed)])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func disposingADebouncedProducerCancelsTheWaitingValue() {
        let scheduler = TestScheduler()
        let recorder = TimeTestRecorder(clock: scheduler)
        let ended = TimeTestCounter()
        let disposable = openProducer([1], ended: ended)
            .debounce(.seconds(1), on: scheduler)
            .start(recorder.observer)
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: .milliseconds(500))
        disposable.dispose()
        #expect(recorder.stamped == [at(0.5, .interrupted)])
        #expect(ended.value == 1)
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(5))
        #expect(recorder.stamped == [at(0.5, .interrupted)])
    }

    @Test func disposingADebouncedSignalObservationDeliversNoMoreValues() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        let observation = signal.debounce(.seconds(1), on: scheduler).observe(recorder.observer)
        input.send(value: 1)
        observation?.dispose()
        input.send(value: 2)
        scheduler.advance(by: .seconds(5))
        #expect(recorder.values.isEmpty)
        #expect(scheduler.pendingCount == 0)
    }

    // MARK: throttle

    @Test func throttleSendsAtMostOneValuePerInterval() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        signal.throttle(.seconds(1), on: scheduler).observe(recorder.observer)
        input.send(value: 1)  // the interval is open: sent at once
        #expect(recorder.stamped == [at(0, .value(1))])
        scheduler.advance(by: .milliseconds(250))
        input.send(value: 2)
        scheduler.advance(by: .milliseconds(250))
        input.send(value: 3)  // replaces 2; sent when the interval ends
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: .milliseconds(250))
        #expect(recorder.stamped == [at(0, .value(1))])
        scheduler.advance(by: .milliseconds(250))  // t = 1
        #expect(recorder.stamped == [at(0, .value(1)), at(1, .value(3))])
        scheduler.advance(by: .milliseconds(500))
        input.send(value: 4)  // t = 1.5: within the interval after 1
        scheduler.advance(by: .milliseconds(500))
        #expect(recorder.stamped == [at(0, .value(1)), at(1, .value(3)), at(2, .value(4))])
        scheduler.advance(by: .milliseconds(1500))
        input.send(value: 5)  // t = 3.5: open again
        scheduler.advance(by: .seconds(1))
        input.send(value: 6)  // t = 4.5: exactly one interval later, open
        #expect(
            recorder.stamped == [
                at(0, .value(1)), at(1, .value(3)), at(2, .value(4)), at(3.5, .value(5)), at(4.5, .value(6)),
            ])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func throttleSendsTheHeldValueThenCompletes() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        signal.throttle(.seconds(1), on: scheduler).observe(recorder.observer)
        input.send(value: 1)
        scheduler.advance(by: .milliseconds(250))
        input.send(value: 2)
        scheduler.advance(by: .milliseconds(250))
        input.sendCompleted()
        #expect(recorder.stamped == [at(0, .value(1)), at(0.5, .value(2)), at(0.5, .completed)])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func throttleForwardsAFailureAtOnceDroppingTheHeldValue() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        signal.throttle(.seconds(1), on: scheduler).observe(recorder.observer)
        input.send(value: 1)
        input.send(value: 2)
        scheduler.advance(by: .milliseconds(500))
        input.send(error: .boom)
        #expect(recorder.stamped == [at(0, .value(1)), at(0.5, .failed(.boom))])
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(5))
        #expect(recorder.stamped == [at(0, .value(1)), at(0.5, .failed(.boom))])
    }

    @Test func throttleOfAProducerSendsTheFirstAndTheLastValue() {
        let scheduler = TestScheduler()
        let recorder = TimeTestRecorder(clock: scheduler)
        SignalProducer<Int, TimeTestError>(values: [1, 2, 3])
            .throttle(.seconds(1), on: scheduler)
            .start(recorder.observer)
        #expect(recorder.stamped == [at(0, .value(1)), at(0, .value(3)), at(0, .completed)])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func disposingAThrottledProducerCancelsTheHeldValue() {
        let scheduler = TestScheduler()
        let recorder = TimeTestRecorder(clock: scheduler)
        let ended = TimeTestCounter()
        let disposable = openProducer([1, 2], ended: ended)
            .throttle(.seconds(1), on: scheduler)
            .start(recorder.observer)
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: .milliseconds(500))
        disposable.dispose()
        #expect(recorder.stamped == [at(0, .value(1)), at(0.5, .interrupted)])
        #expect(ended.value == 1)
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(5))
        #expect(recorder.stamped == [at(0, .value(1)), at(0.5, .interrupted)])
    }

    @Test func disposingAThrottledSignalObservationDeliversNoMoreValues() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        let observation = signal.throttle(.seconds(1), on: scheduler).observe(recorder.observer)
        input.send(value: 1)
        input.send(value: 2)
        observation?.dispose()
        input.send(value: 3)
        scheduler.advance(by: .seconds(5))
        #expect(recorder.values == [1])
        #expect(scheduler.pendingCount == 0)
    }

    // MARK: observe(on:)

    @Test func observeOnDeliversEverythingThroughTheScheduler() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        signal.observe(on: scheduler).observe(recorder.observer)
        input.send(value: 1)
        input.send(value: 2)
        input.sendCompleted()
        #expect(recorder.stamped.isEmpty)
        #expect(scheduler.pendingCount == 1)  // one drain for the whole batch
        scheduler.advance()
        #expect(recorder.events == [.value(1), .value(2), .completed])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func observeOnDeliversAnUpstreamInterruptionThroughTheSchedulerToo() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        signal.observe(on: scheduler).observe(recorder.observer)
        input.send(value: 1)
        input.sendInterrupted()
        #expect(recorder.events.isEmpty)
        scheduler.advance()
        #expect(recorder.events == [.value(1), .interrupted])
    }

    @Test func disposingAProducerObservedOnASchedulerCancelsTheDrain() {
        let scheduler = TestScheduler()
        let recorder = TimeTestRecorder(clock: scheduler)
        let ended = TimeTestCounter()
        let disposable = openProducer([1, 2], ended: ended)
            .observe(on: scheduler)
            .start(recorder.observer)
        #expect(scheduler.pendingCount == 1)
        disposable.dispose()
        #expect(recorder.events == [.interrupted])
        #expect(ended.value == 1)
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(1))
        #expect(recorder.events == [.interrupted])
    }

    @Test func disposingASignalObservedOnASchedulerDeliversNoMoreValues() {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        let observation = signal.observe(on: scheduler).observe(recorder.observer)
        input.send(value: 1)
        observation?.dispose()
        input.send(value: 2)
        scheduler.advance()
        #expect(recorder.values.isEmpty)
        #expect(scheduler.pendingCount == 0)
    }

    @Test func observeOnAConcurrentQueueKeepsTheOrderAndNeverOverlaps() {
        let queue = DispatchQueue(label: "sluice.tests.observe-on", attributes: .concurrent)
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 42)
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let direct = TimeTestRecorder()
        let recorder = TimeTestRecorder()
        let probe = OverlapProbe()
        let offQueue = TimeTestCounter()
        signal.observe(direct.observer)
        signal.observe(on: QueueScheduler(queue: queue)).observe(
            Observer { event in
                probe.enter()
                if DispatchQueue.getSpecific(key: key) != 42 { offQueue.increment() }
                _ = spin()
                recorder.record(event)
                probe.leave()
            })
        // Several threads send at once; the pipe picks an order, which the observer must see too.
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<1_000 { input.send(value: thread * 1_000 + i) }
        }
        input.sendCompleted()
        #expect(recorder.waitForTerminal())
        #expect(recorder.values.count == 8_000)
        #expect(recorder.events == direct.events)
        #expect(recorder.events.last == .completed)
        #expect(probe.maximumSeen == 1)
        #expect(offQueue.value == 0)
    }

    @Test func observeOnAConcurrentQueueKeepsAProducersOrder() {
        let queue = DispatchQueue(label: "sluice.tests.observe-on-producer", attributes: .concurrent)
        let recorder = TimeTestRecorder()
        let probe = OverlapProbe()
        SignalProducer<Int, TimeTestError>(values: Array(0..<5_000))
            .observe(on: QueueScheduler(queue: queue))
            .start(
                Observer { event in
                    probe.enter()
                    _ = spin()
                    recorder.record(event)
                    probe.leave()
                })
        #expect(recorder.waitForTerminal())
        #expect(recorder.values == Array(0..<5_000))
        #expect(recorder.events.last == .completed)
        #expect(recorder.events.filter(\.isTerminating).count == 1)
        #expect(probe.maximumSeen == 1)
    }

    // MARK: real timers racing upstream

    @Test func delayOnAConcurrentQueueKeepsTheOrder() {
        let queue = DispatchQueue(label: "sluice.tests.delay", attributes: .concurrent)
        let recorder = TimeTestRecorder()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        signal.delay(.milliseconds(1), on: QueueScheduler(queue: queue)).observe(recorder.observer)
        for value in 0..<2_000 { input.send(value: value) }
        input.sendCompleted()
        #expect(recorder.waitForTerminal())
        #expect(recorder.values == Array(0..<2_000))
        #expect(recorder.events.last == .completed)
    }

    @Test func aTimeoutRacingCompletionEndsWithExactlyOneTerminalEvent() {
        let queue = DispatchQueue(label: "sluice.tests.timeout-race", attributes: .concurrent)
        let scheduler = QueueScheduler(queue: queue)
        for _ in 0..<200 {
            let recorder = TimeTestRecorder()
            SignalProducer<Int, TimeTestError> { observer, _ in
                queue.async {
                    observer.send(value: 1)
                    observer.sendCompleted()
                }
            }
            .timeout(after: .zero, raising: .timedOut, on: scheduler)
            .start(recorder.observer)
            #expect(recorder.waitForTerminal())
            let events = recorder.events
            #expect(
                events == [.value(1), .completed] || events == [.failed(.timedOut)]
                    || events == [.value(1), .failed(.timedOut)])
        }
    }

    // MARK: start(on:)

    @Test func startOnRunsTheWorkThroughTheScheduler() {
        let scheduler = TestScheduler()
        let recorder = TimeTestRecorder(clock: scheduler)
        let runs = TimeTestCounter()
        let producer = SignalProducer<Int, TimeTestError> { observer, _ in
            runs.increment()
            observer.send(value: 1)
            observer.sendCompleted()
        }
        producer.start(on: scheduler).start(recorder.observer)
        #expect(runs.value == 0)
        #expect(recorder.events.isEmpty)
        scheduler.advance(by: .seconds(1))
        #expect(runs.value == 1)
        #expect(recorder.stamped == [at(0, .value(1)), at(0, .completed)])
    }

    @Test func startOnRunsTheWorkAfreshForEachStart() {
        let scheduler = TestScheduler()
        let runs = TimeTestCounter()
        let producer = SignalProducer<Int, TimeTestError> { observer, _ in
            observer.send(value: runs.increment())
            observer.sendCompleted()
        }.start(on: scheduler)
        let first = TimeTestRecorder()
        let second = TimeTestRecorder()
        producer.start(first.observer)
        producer.start(second.observer)
        #expect(scheduler.pendingCount == 2)
        scheduler.advance()
        #expect(first.events == [.value(1), .completed])
        #expect(second.events == [.value(2), .completed])
    }

    @Test func disposingBeforeTheWorkRunsCancelsItAndInterrupts() {
        let scheduler = TestScheduler()
        let recorder = TimeTestRecorder(clock: scheduler)
        let runs = TimeTestCounter()
        let disposable = SignalProducer<Int, TimeTestError> { observer, _ in
            runs.increment()
            observer.send(value: 1)
        }.start(on: scheduler).start(recorder.observer)
        disposable.dispose()
        #expect(recorder.events == [.interrupted])
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(1))
        #expect(runs.value == 0)
        #expect(recorder.events == [.interrupted])
    }

    @Test func disposingAfterTheWorkStartedInterruptsIt() {
        let scheduler = TestScheduler()
        let recorder = TimeTestRecorder(clock: scheduler)
        let ended = TimeTestCounter()
        let disposable = openProducer([1], ended: ended).start(on: scheduler).start(recorder.observer)
        scheduler.advance()
        #expect(recorder.events == [.value(1)])
        disposable.dispose()
        #expect(recorder.events == [.value(1), .interrupted])
        #expect(ended.value == 1)
    }

    @Test func startOnAQueueRunsTheWorkOnThatQueue() {
        let queue = DispatchQueue(label: "sluice.tests.start-on")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let recorder = TimeTestRecorder()
        SignalProducer<Int, TimeTestError> { observer, _ in
            observer.send(value: DispatchQueue.getSpecific(key: key) ?? 0)
            observer.sendCompleted()
        }.start(on: QueueScheduler(queue: queue)).start(recorder.observer)
        #expect(recorder.waitForTerminal())
        #expect(recorder.events == [.value(7), .completed])
    }
}
