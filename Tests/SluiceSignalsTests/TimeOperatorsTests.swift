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

/// A time operator on the test scheduler, for the cases that differ only by operator and values.
private enum TimeOperator: Sendable {
    case timeout(Duration)
    case delay(Duration)
    case debounce(Duration)
    case throttle(Duration)
    case observeOn

    func applied(to signal: Signal<Int, TimeTestError>, on scheduler: TestScheduler) -> Signal<Int, TimeTestError> {
        switch self {
        case .timeout(let interval): signal.timeout(after: interval, raising: .timedOut, on: scheduler)
        case .delay(let interval): signal.delay(interval, on: scheduler)
        case .debounce(let interval): signal.debounce(interval, on: scheduler)
        case .throttle(let interval): signal.throttle(interval, on: scheduler)
        case .observeOn: signal.observe(on: scheduler)
        }
    }

    func applied(
        to producer: SignalProducer<Int, TimeTestError>, on scheduler: TestScheduler
    ) -> SignalProducer<Int, TimeTestError> {
        switch self {
        case .timeout(let interval): producer.timeout(after: interval, raising: .timedOut, on: scheduler)
        case .delay(let interval): producer.delay(interval, on: scheduler)
        case .debounce(let interval): producer.debounce(interval, on: scheduler)
        case .throttle(let interval): producer.throttle(interval, on: scheduler)
        case .observeOn: producer.observe(on: scheduler)
        }
    }
}

/// A parameterised test's case, shown by its name: what it checks, in a sentence.
private protocol NamedCase: Sendable, CustomTestStringConvertible {
    var name: String { get }
}

extension NamedCase {
    var testDescription: String { name }
}

/// A signal through `timing` sends `sends`, the clock advances by `advance`, and `terminal`
/// arrives: `expected` is what the observer gets, at once.
private struct TerminalCase: NamedCase {
    let name: String
    let timing: TimeOperator
    let sends: [Int]
    let advance: Duration
    let terminal: Event<Int, TimeTestError>
    let expected: [Stamped]
}

/// A producer that sends `values` and never ends, through `timing`, disposed of at 0.5 s:
/// `expected` is what the observer gets.
private struct ProducerDisposalCase: NamedCase {
    let name: String
    let timing: TimeOperator
    let values: [Int]
    let expected: [Stamped]
}

/// A signal's observation through `timing` gets `sends` (then the clock advances by `advance`, if
/// any) and is disposed of; `then` is sent after, and the clock advances by `settle`: the observer
/// has had `expected` as values.
private struct ObservationDisposalCase: NamedCase {
    let name: String
    let timing: TimeOperator
    let sends: [Int]
    let advance: Duration?
    let then: Int
    let settle: Duration
    let expected: [Int]
}

/// A producer of 1, 2, 3 (sent at once, then completed) through `timing`: `expected` is what the
/// observer gets.
private struct ProducerCase: NamedCase {
    let name: String
    let timing: TimeOperator
    let expected: [Stamped]
}

/// A signal through `timing` sends each of `steps`' values, the clock advancing after each by its
/// duration, and then completes: `expected` is what the observer gets.
private struct CompletionCase: NamedCase {
    let name: String
    let timing: TimeOperator
    let steps: [(value: Int, advance: Duration)]
    let expected: [Stamped]
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

    // MARK: every timer operator alike

    @Test(arguments: [
        TerminalCase(
            name: "timeout forwards an upstream failure and cancels its timer", timing: .timeout(.seconds(2)),
            sends: [], advance: .seconds(1), terminal: .failed(.boom), expected: [at(1, .failed(.boom))]),
        TerminalCase(
            name: "delay forwards an interruption at once and drops waiting events", timing: .delay(.seconds(2)),
            sends: [1], advance: .seconds(1), terminal: .interrupted, expected: [at(1, .interrupted)]),
        TerminalCase(
            name: "debounce forwards a failure at once, dropping the waiting value", timing: .debounce(.seconds(1)),
            sends: [1], advance: .milliseconds(500), terminal: .failed(.boom), expected: [at(0.5, .failed(.boom))]),
        TerminalCase(
            name: "debounce forwards an interruption at once, dropping the waiting value",
            timing: .debounce(.seconds(1)), sends: [1], advance: .milliseconds(500), terminal: .interrupted,
            expected: [at(0.5, .interrupted)]),
        TerminalCase(
            name: "throttle forwards a failure at once, dropping the held value", timing: .throttle(.seconds(1)),
            sends: [1, 2], advance: .milliseconds(500), terminal: .failed(.boom),
            expected: [at(0, .value(1)), at(0.5, .failed(.boom))]),
    ])
    private func anUpstreamTerminalEventPassesAtOnceAndCancelsTheTimer(_ test: TerminalCase) {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        test.timing.applied(to: signal, on: scheduler).observe(recorder.observer)
        for value in test.sends { input.send(value: value) }
        scheduler.advance(by: test.advance)
        input.send(test.terminal)
        #expect(recorder.stamped == test.expected)
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(5))
        #expect(recorder.stamped == test.expected)
    }

    @Test(arguments: [
        ProducerDisposalCase(
            name: "disposing a timed-out producer cancels the timer", timing: .timeout(.seconds(2)), values: [],
            expected: [at(0.5, .interrupted)]),
        ProducerDisposalCase(
            name: "disposing a delayed producer cancels waiting events", timing: .delay(.seconds(1)), values: [1, 2],
            expected: [at(0.5, .interrupted)]),
        ProducerDisposalCase(
            name: "disposing a debounced producer cancels the waiting value", timing: .debounce(.seconds(1)),
            values: [1], expected: [at(0.5, .interrupted)]),
        ProducerDisposalCase(
            name: "disposing a throttled producer cancels the held value", timing: .throttle(.seconds(1)),
            values: [1, 2], expected: [at(0, .value(1)), at(0.5, .interrupted)]),
    ])
    private func disposingATimedProducerInterruptsItsWorkAndCancelsTheTimer(_ test: ProducerDisposalCase) {
        let scheduler = TestScheduler()
        let recorder = TimeTestRecorder(clock: scheduler)
        let ended = TimeTestCounter()
        let disposable = test.timing.applied(to: openProducer(test.values, ended: ended), on: scheduler)
            .start(recorder.observer)
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: .milliseconds(500))
        disposable.dispose()
        #expect(recorder.stamped == test.expected)
        #expect(ended.value == 1)
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(5))
        #expect(recorder.stamped == test.expected)
    }

    @Test(arguments: [
        ObservationDisposalCase(
            name: "disposing a delayed signal's observation", timing: .delay(.seconds(1)), sends: [1],
            advance: .milliseconds(500), then: 2, settle: .seconds(5), expected: []),
        ObservationDisposalCase(
            name: "disposing a debounced signal's observation", timing: .debounce(.seconds(1)), sends: [1],
            advance: nil, then: 2, settle: .seconds(5), expected: []),
        ObservationDisposalCase(
            name: "disposing a throttled signal's observation", timing: .throttle(.seconds(1)), sends: [1, 2],
            advance: nil, then: 3, settle: .seconds(5), expected: [1]),
        ObservationDisposalCase(
            name: "disposing the observation of a signal observed on a scheduler", timing: .observeOn, sends: [1],
            advance: nil, then: 2, settle: .zero, expected: []),
    ])
    private func disposingAnObservationDeliversNoMoreValues(_ test: ObservationDisposalCase) {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        let observation = test.timing.applied(to: signal, on: scheduler).observe(recorder.observer)
        for value in test.sends { input.send(value: value) }
        if let advance = test.advance { scheduler.advance(by: advance) }
        observation.dispose()
        input.send(value: test.then)
        scheduler.advance(by: test.settle)
        #expect(recorder.values == test.expected)
        #expect(recorder.events.filter(\.isTerminating).count <= 1)
        #expect(scheduler.pendingCount == 0)
    }

    @Test(arguments: [
        ProducerCase(
            name: "debounce of a producer keeps the last value", timing: .debounce(.seconds(1)),
            expected: [at(0, .value(3)), at(0, .completed)]),
        ProducerCase(
            name: "throttle of a producer sends the first and the last value", timing: .throttle(.seconds(1)),
            expected: [at(0, .value(1)), at(0, .value(3)), at(0, .completed)]),
    ])
    private func aProducerThatSendsEverythingAtOnce(_ test: ProducerCase) {
        let scheduler = TestScheduler()
        let recorder = TimeTestRecorder(clock: scheduler)
        test.timing.applied(to: SignalProducer<Int, TimeTestError>(values: [1, 2, 3]), on: scheduler)
            .start(recorder.observer)
        #expect(recorder.stamped == test.expected)
        #expect(scheduler.pendingCount == 0)
    }

    @Test(arguments: [
        CompletionCase(
            name: "debounce sends the waiting value, then completes", timing: .debounce(.seconds(1)),
            steps: [(1, .milliseconds(500))], expected: [at(0.5, .value(1)), at(0.5, .completed)]),
        CompletionCase(
            name: "debounce completes without a value when none is waiting", timing: .debounce(.seconds(1)),
            steps: [(1, .seconds(2))], expected: [at(1, .value(1)), at(2, .completed)]),
        CompletionCase(
            name: "throttle sends the held value, then completes", timing: .throttle(.seconds(1)),
            steps: [(1, .milliseconds(250)), (2, .milliseconds(250))],
            expected: [at(0, .value(1)), at(0.5, .value(2)), at(0.5, .completed)]),
    ])
    private func completionSendsWhatWaitsThenCompletes(_ test: CompletionCase) {
        let scheduler = TestScheduler()
        let (signal, input) = Signal<Int, TimeTestError>.pipe()
        let recorder = TimeTestRecorder(clock: scheduler)
        test.timing.applied(to: signal, on: scheduler).observe(recorder.observer)
        for (value, advance) in test.steps {
            input.send(value: value)
            scheduler.advance(by: advance)
        }
        input.sendCompleted()
        #expect(recorder.stamped == test.expected)
        #expect(scheduler.pendingCount == 0)
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
