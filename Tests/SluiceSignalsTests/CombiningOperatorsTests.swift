import Dispatch
import SluiceSignals
import Synchronization
import Testing

// MARK: - Helpers (prefixed or private, so they cannot clash with other test files)

/// Records the events an observer receives, from any thread, and notices overlapping callbacks
/// and events after the terminal one.
final class CombiningTestRecorder<Value: Sendable, Failure: Error>: Sendable {
    private let storage = Lock<[Event<Value, Failure>]>([])
    private let inCallback = Atomic<Bool>(false)
    private let overlapCount = Atomic<Int>(0)
    private let done = DispatchSemaphore(value: 0)

    var observer: Observer<Value, Failure> {
        Observer { event in self.record(event) }
    }

    func record(_ event: Event<Value, Failure>) {
        if inCallback.exchange(true, ordering: .acquiringAndReleasing) {
            overlapCount.add(1, ordering: .relaxed)
        }
        storage.withLock { $0.append(event) }
        inCallback.store(false, ordering: .releasing)
        if event.isTerminating { done.signal() }
    }

    var events: [Event<Value, Failure>] { storage.withLock { $0 } }
    var values: [Value] { events.compactMap(\.value) }
    var terminal: Event<Value, Failure>? { events.last.flatMap { $0.isTerminating ? $0 : nil } }
    var overlaps: Int { overlapCount.load(ordering: .relaxed) }

    /// Whether the events follow `value* terminal?`: at most one terminal event, and it is last.
    var isGrammatical: Bool {
        let terminals = events.indices.filter { events[$0].isTerminating }
        return terminals.isEmpty || terminals == [events.count - 1]
    }

    /// Waits (bounded) for a terminal event; returns false on timeout.
    func waitForTerminal(seconds: Double = 20) -> Bool {
        if terminal != nil { return true }
        return done.wait(timeout: .now() + seconds) == .success
    }
}

private enum CombiningError: Error, Equatable {
    case boom
    case other
}

/// A thread-safe counter.
private final class Counter: Sendable {
    private let storage = Atomic<Int>(0)
    var value: Int { storage.load(ordering: .acquiring) }
    func increment() { storage.add(1, ordering: .acquiringAndReleasing) }
    func decrement() { storage.add(-1, ordering: .acquiringAndReleasing) }
}

/// A cold producer driven by hand through a pipe, that counts its starts and the ends of its
/// subscriptions' lifetimes.
private struct Probe<V: Sendable>: Sendable {
    let input: Observer<V, CombiningError>
    let producer: SignalProducer<V, CombiningError>
    let starts = Counter()
    let ends = Counter()

    init() {
        let (signal, input) = Signal<V, CombiningError>.pipe()
        self.input = input
        let (starts, ends) = (self.starts, self.ends)
        producer = SignalProducer { observer, lifetime in
            starts.increment()
            lifetime.observeEnded { ends.increment() }
            lifetime += signal.observe(observer)
        }
    }

    /// Whether every start has ended.
    var isEnded: Bool { starts.value > 0 && starts.value == ends.value }
    /// Whether some start has not ended.
    var isRunning: Bool { starts.value > ends.value }
}

/// A reference whose deallocation a test can observe through a weak reference.
private final class CombiningCanary: Sendable {}

/// A thread-safe weak reference to a canary.
private final class CombiningWeakBox: Sendable {
    private struct Weak { weak var object: CombiningCanary? }
    private let storage = Lock(Weak())
    var object: CombiningCanary? {
        get { storage.withLock { $0.object } }
        set { storage.withLock { $0.object = newValue } }
    }
}

private func describe<A, B>(_ pair: (A, B)) -> String { "\(pair.0)\(pair.1)" }
private func describe<A, B, C>(_ triple: (A, B, C)) -> String { "\(triple.0)\(triple.1)\(triple.2)" }

// MARK: - merge

@Suite("Combining operators")
struct CombiningOperatorsTests {
    @Test func mergedSignalsForwardValuesAndCompleteWhenAllHaveCompleted() {
        let a = Signal<Int, CombiningError>.pipe()
        let b = Signal<Int, CombiningError>.pipe()
        let c = Signal<Int, CombiningError>.pipe()
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        Signal.merge(a.output, b.output, c.output).observe(recorder.observer)
        a.input.send(value: 1)
        b.input.send(value: 2)
        a.input.sendCompleted()
        c.input.send(value: 3)
        b.input.sendCompleted()
        #expect(recorder.terminal == nil)
        c.input.send(value: 4)
        c.input.sendCompleted()
        #expect(recorder.events == [.value(1), .value(2), .value(3), .value(4), .completed])
    }

    @Test func mergedSignalEndsWithTheFirstFailureAndDetachesTheOthers() {
        let a = Signal<Int, CombiningError>.pipe()
        let b = Signal<Int, CombiningError>.pipe()
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        a.output.merge(with: b.output).observe(recorder.observer)
        a.input.send(value: 1)
        b.input.send(error: .boom)
        a.input.send(value: 2)
        a.input.sendCompleted()
        #expect(recorder.events == [.value(1), .failed(.boom)])
    }

    @Test func mergedSignalIsInterruptedByAnInterruptedSource() {
        let a = Signal<Int, CombiningError>.pipe()
        let b = Signal<Int, CombiningError>.pipe()
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        Signal.merge([a.output, b.output]).observe(recorder.observer)
        a.input.sendInterrupted()
        b.input.send(value: 1)
        #expect(recorder.events == [.interrupted])
    }

    @Test func disposingAMergedObservationDetachesFromTheSources() {
        let a = Signal<Int, CombiningError>.pipe()
        let b = Signal<Int, CombiningError>.pipe()
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        let disposable = Signal.merge(a.output, b.output).observe(recorder.observer)
        a.input.send(value: 1)
        disposable.dispose()
        a.input.send(value: 2)
        b.input.send(value: 3)
        #expect(recorder.values == [1])
        #expect(recorder.isGrammatical)
    }

    @Test func mergeOfNothingCompletesAtOnce() {
        let signal = CombiningTestRecorder<Int, CombiningError>()
        Signal<Int, CombiningError>.merge([]).observe(signal.observer)
        #expect(signal.events == [.completed])
        let producer = CombiningTestRecorder<Int, CombiningError>()
        SignalProducer<Int, CombiningError>.merge([]).start(producer.observer)
        #expect(producer.events == [.completed])
    }

    @Test func mergedProducersRunEachOneAndCompleteWhenAllHaveCompleted() {
        let variadic = CombiningTestRecorder<Int, CombiningError>()
        SignalProducer.merge(SignalProducer(values: [1, 2]), SignalProducer(values: [3])).start(variadic.observer)
        #expect(variadic.events == [.value(1), .value(2), .value(3), .completed])

        let p = Probe<Int>()
        let q = Probe<Int>()
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        p.producer.merge(with: q.producer).start(recorder.observer)
        q.input.send(value: 1)
        p.input.send(value: 2)
        q.input.sendCompleted()
        #expect(recorder.terminal == nil)
        p.input.sendCompleted()
        #expect(recorder.events == [.value(1), .value(2), .completed])
        #expect(p.isEnded && q.isEnded)
    }

    @Test func aFailingProducerFailsTheMergeAndDisposesTheOthers() {
        let p = Probe<Int>()
        let later = Probe<Int>()
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        SignalProducer.merge([p.producer, SignalProducer(error: .boom), later.producer]).start(recorder.observer)
        #expect(recorder.events == [.failed(.boom)])
        #expect(p.isEnded)
        // A source after the one that failed at once is never started.
        #expect(later.starts.value == 0)
    }

    @Test func disposingAMergedProducerInterruptsAndDisposesEverySource() {
        let p = Probe<Int>()
        let q = Probe<Int>()
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        let disposable = SignalProducer.merge(p.producer, q.producer).start(recorder.observer)
        p.input.send(value: 1)
        #expect(p.isRunning && q.isRunning)
        disposable.dispose()
        #expect(recorder.events == [.value(1), .interrupted])
        #expect(p.isEnded && q.isEnded)
    }

    @Test func mergedPipesDeliverEveryValueExactlyOnceAndSerially() {
        let pipes = (0..<4).map { _ in Signal<Int, Never>.pipe() }
        let recorder = CombiningTestRecorder<Int, Never>()
        Signal.merge(pipes.map(\.output)).observe(recorder.observer)
        let threads = 8
        let count = 2_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for i in 0..<count { pipes[thread % pipes.count].input.send(value: thread * 1_000_000 + i) }
        }
        for pipe in pipes { pipe.input.sendCompleted() }
        #expect(recorder.waitForTerminal())
        let values = recorder.values
        #expect(values.count == threads * count)
        #expect(Set(values).count == threads * count)
        #expect(recorder.overlaps == 0)
        #expect(recorder.terminal == .completed)
        // Each thread's values arrive in the order it sent them.
        for thread in 0..<threads {
            let mine = values.filter { $0 / 1_000_000 == thread }
            #expect(mine == mine.sorted())
        }
    }

    @Test func mergedProducersSendingFromManyThreadsDeliverSerially() {
        let producers = (0..<6).map { index in
            SignalProducer<Int, Never> { observer, _ in
                DispatchQueue.global().async {
                    for i in 0..<1_000 { observer.send(value: index * 1_000 + i) }
                    observer.sendCompleted()
                }
            }
        }
        let recorder = CombiningTestRecorder<Int, Never>()
        SignalProducer.merge(producers).start(recorder.observer)
        #expect(recorder.waitForTerminal())
        #expect(recorder.values.count == 6_000)
        #expect(Set(recorder.values).count == 6_000)
        #expect(recorder.overlaps == 0)
        #expect(recorder.terminal == .completed)
        #expect(recorder.isGrammatical)
    }

    @Test func anObserverSendingIntoAMergedSourceIsNotReentered() {
        let a = Signal<Int, Never>.pipe()
        let b = Signal<Int, Never>.pipe()
        let recorder = CombiningTestRecorder<Int, Never>()
        Signal.merge(a.output, b.output).observe { event in
            recorder.record(event)
            if case .value(1) = event {
                b.input.send(value: 2)  // queued: delivered after this callback returns
                a.input.send(value: 3)
            }
        }
        a.input.send(value: 1)
        #expect(recorder.values == [1, 2, 3])
        #expect(recorder.overlaps == 0)
    }

    @Test func aFinishedMergeReleasesItsObserver() {
        let a = Signal<Int, Never>.pipe()
        let b = Signal<Int, Never>.pipe()
        let tracker = CombiningWeakBox()
        do {
            let canary = CombiningCanary()
            tracker.object = canary
            Signal.merge(a.output, b.output).map { $0 + 1 }.observe { _ in withExtendedLifetime(canary) {} }
        }
        a.input.send(value: 1)
        #expect(tracker.object != nil)
        a.input.sendCompleted()
        b.input.sendCompleted()
        #expect(tracker.object == nil)

        let p = Probe<Int>()
        let producerTracker = CombiningWeakBox()
        do {
            let canary = CombiningCanary()
            producerTracker.object = canary
            SignalProducer.merge(p.producer, SignalProducer(value: 0)).start { _ in withExtendedLifetime(canary) {} }
        }
        #expect(producerTracker.object != nil)
        p.input.sendCompleted()
        #expect(producerTracker.object == nil)
    }

    // MARK: - combineLatest

    @Test func combineLatestSendsOnceEverySourceHasSent() {
        let a = Signal<Int, CombiningError>.pipe()
        let b = Signal<String, CombiningError>.pipe()
        let recorder = CombiningTestRecorder<String, CombiningError>()
        a.output.combineLatest(with: b.output).map(describe).observe(recorder.observer)
        a.input.send(value: 1)
        a.input.send(value: 2)
        #expect(recorder.events.isEmpty)
        b.input.send(value: "x")
        a.input.send(value: 3)
        b.input.send(value: "y")
        a.input.sendCompleted()
        #expect(recorder.terminal == nil)
        b.input.send(value: "z")
        b.input.sendCompleted()
        #expect(recorder.events == [.value("2x"), .value("3x"), .value("3y"), .value("3z"), .completed])
    }

    @Test func combineLatestCompletesWhenASourceCompletesWithoutAValue() {
        let a = Signal<Int, CombiningError>.pipe()
        let b = Signal<Int, CombiningError>.pipe()
        let recorder = CombiningTestRecorder<String, CombiningError>()
        Signal.combineLatest(a.output, b.output).map(describe).observe(recorder.observer)
        a.input.send(value: 1)
        b.input.sendCompleted()
        a.input.send(value: 2)
        #expect(recorder.events == [.completed])
    }

    @Test func combineLatestFailsWithTheFirstFailure() {
        let a = Signal<Int, CombiningError>.pipe()
        let b = Signal<Int, CombiningError>.pipe()
        let recorder = CombiningTestRecorder<String, CombiningError>()
        Signal.combineLatest(a.output, b.output).map(describe).observe(recorder.observer)
        a.input.send(value: 1)
        b.input.send(value: 2)
        b.input.send(error: .other)
        a.input.send(value: 3)
        #expect(recorder.events == [.value("12"), .failed(.other)])
    }

    @Test func combineLatestOfThreeProducers() {
        let recorder = CombiningTestRecorder<String, CombiningError>()
        SignalProducer.combineLatest(
            SignalProducer<Int, CombiningError>(values: [1, 2]),
            SignalProducer<String, CombiningError>(values: ["a", "b"]),
            SignalProducer<Bool, CombiningError>(values: [true])
        ).map(describe).start(recorder.observer)
        #expect(recorder.events == [.value("2btrue"), .completed])

        let a = Signal<Int, CombiningError>.pipe()
        let b = Signal<Int, CombiningError>.pipe()
        let c = Signal<Int, CombiningError>.pipe()
        let signal = CombiningTestRecorder<String, CombiningError>()
        Signal.combineLatest(a.output, b.output, c.output).map(describe).observe(signal.observer)
        a.input.send(value: 1)
        b.input.send(value: 2)
        c.input.send(value: 3)
        b.input.send(value: 4)
        for pipe in [a, b, c] { pipe.input.sendCompleted() }
        #expect(signal.events == [.value("123"), .value("143"), .completed])
    }

    @Test func combineLatestOfAnArray() {
        let pipes = (0..<3).map { _ in Signal<Int, CombiningError>.pipe() }
        let recorder = CombiningTestRecorder<[Int], CombiningError>()
        Signal.combineLatest(pipes.map(\.output)).observe(recorder.observer)
        pipes[2].input.send(value: 3)
        pipes[0].input.send(value: 1)
        pipes[1].input.send(value: 2)
        pipes[0].input.send(value: 10)
        #expect(recorder.values == [[1, 2, 3], [10, 2, 3]])

        let producers = CombiningTestRecorder<[Int], CombiningError>()
        SignalProducer.combineLatest([SignalProducer(value: 1), SignalProducer(values: [2, 3])])
            .start(producers.observer)
        #expect(producers.events == [.value([1, 2]), .value([1, 3]), .completed])

        let empty = CombiningTestRecorder<[Int], CombiningError>()
        SignalProducer<Int, CombiningError>.combineLatest([]).start(empty.observer)
        #expect(empty.events == [.completed])
    }

    @Test func disposingCombineLatestDisposesBothProducers() {
        let p = Probe<Int>()
        let q = Probe<Int>()
        let recorder = CombiningTestRecorder<String, CombiningError>()
        let disposable = p.producer.combineLatest(with: q.producer).map(describe).start(recorder.observer)
        p.input.send(value: 1)
        q.input.send(value: 2)
        disposable.dispose()
        #expect(recorder.events == [.value("12"), .interrupted])
        #expect(p.isEnded && q.isEnded)
    }

    @Test func combineLatestUnderConcurrencyEndsWithTheLatestValues() {
        let a = Signal<Int, Never>.pipe()
        let b = Signal<Int, Never>.pipe()
        let recorder = CombiningTestRecorder<[Int], Never>()
        Signal.combineLatest([a.output, b.output]).observe(recorder.observer)
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let pipe = index == 0 ? a : b
            for i in 0..<5_000 { pipe.input.send(value: i) }
        }
        a.input.sendCompleted()
        b.input.sendCompleted()
        #expect(recorder.waitForTerminal())
        #expect(recorder.values.last == [4_999, 4_999])
        #expect(recorder.overlaps == 0)
        // Each side never goes backwards.
        let values = recorder.values
        #expect(values.map { $0[0] } == values.map { $0[0] }.sorted())
        #expect(values.map { $0[1] } == values.map { $0[1] }.sorted())
    }

    // MARK: - zip

    @Test func zipPairsValuesInOrderAndCompletesWhenABufferIsExhausted() {
        let a = Signal<Int, CombiningError>.pipe()
        let b = Signal<String, CombiningError>.pipe()
        let recorder = CombiningTestRecorder<String, CombiningError>()
        a.output.zip(with: b.output).map(describe).observe(recorder.observer)
        a.input.send(value: 1)
        a.input.send(value: 2)
        a.input.send(value: 3)
        b.input.send(value: "x")
        a.input.sendCompleted()
        #expect(recorder.terminal == nil)
        b.input.send(value: "y")
        #expect(recorder.terminal == nil)
        b.input.send(value: "z")
        #expect(recorder.events == [.value("1x"), .value("2y"), .value("3z"), .completed])
    }

    @Test func zipCompletesAtOnceWhenAnEmptyBufferedSourceCompletes() {
        let a = Signal<Int, CombiningError>.pipe()
        let b = Signal<Int, CombiningError>.pipe()
        let recorder = CombiningTestRecorder<String, CombiningError>()
        Signal.zip(a.output, b.output).map(describe).observe(recorder.observer)
        a.input.send(value: 1)
        a.input.send(value: 2)
        b.input.send(value: 3)
        b.input.sendCompleted()
        a.input.send(value: 4)
        #expect(recorder.events == [.value("13"), .completed])
    }

    @Test func zipFailsWithTheFirstFailure() {
        let a = Signal<Int, CombiningError>.pipe()
        let b = Signal<Int, CombiningError>.pipe()
        let recorder = CombiningTestRecorder<String, CombiningError>()
        Signal.zip(a.output, b.output).map(describe).observe(recorder.observer)
        a.input.send(value: 1)
        a.input.send(error: .boom)
        b.input.send(value: 2)
        #expect(recorder.events == [.failed(.boom)])
    }

    @Test func zipOfThreeProducersAndOfAnArray() {
        let recorder = CombiningTestRecorder<String, CombiningError>()
        SignalProducer.zip(
            SignalProducer<Int, CombiningError>(values: [1, 2, 3]),
            SignalProducer<String, CombiningError>(values: ["a", "b"]),
            SignalProducer<Bool, CombiningError>(values: [true, false, true])
        ).map(describe).start(recorder.observer)
        #expect(recorder.events == [.value("1atrue"), .value("2bfalse"), .completed])

        let pipes = (0..<3).map { _ in Signal<Int, CombiningError>.pipe() }
        let signal = CombiningTestRecorder<String, CombiningError>()
        Signal.zip(pipes[0].output, pipes[1].output, pipes[2].output).map(describe).observe(signal.observer)
        pipes[0].input.send(value: 1)
        pipes[1].input.send(value: 2)
        pipes[2].input.send(value: 3)
        pipes[2].input.sendCompleted()
        #expect(signal.events == [.value("123"), .completed])

        let array = CombiningTestRecorder<[Int], CombiningError>()
        SignalProducer.zip([SignalProducer(values: [1, 2]), SignalProducer(values: [3, 4, 5])]).start(array.observer)
        #expect(array.events == [.value([1, 3]), .value([2, 4]), .completed])
    }

    @Test func zipOfProducersDisposesTheOthersWhenItEnds() {
        let p = Probe<Int>()
        let recorder = CombiningTestRecorder<String, CombiningError>()
        SignalProducer.zip(p.producer, SignalProducer<Int, CombiningError>(value: 9)).map(describe).start(
            recorder.observer)
        #expect(p.isRunning)
        p.input.send(value: 1)
        #expect(recorder.events == [.value("19"), .completed])
        #expect(p.isEnded)
    }

    // MARK: - flatMap

    @Test func flatMapMergeInterleavesInnerValuesAndWaitsForThem() {
        let outer = Signal<Int, CombiningError>.pipe()
        let inners = [Probe<String>(), Probe<String>()]
        let recorder = CombiningTestRecorder<String, CombiningError>()
        outer.output.flatMap(.merge) { inners[$0].producer }.observe(recorder.observer)
        outer.input.send(value: 0)
        outer.input.send(value: 1)
        inners[1].input.send(value: "b1")
        inners[0].input.send(value: "a1")
        inners[1].input.send(value: "b2")
        inners[0].input.sendCompleted()
        outer.input.sendCompleted()
        #expect(recorder.terminal == nil)
        inners[1].input.sendCompleted()
        #expect(recorder.events == [.value("b1"), .value("a1"), .value("b2"), .completed])
        #expect(inners.allSatisfy { $0.isEnded })
    }

    @Test func flatMapConcatRunsInnerProducersOneAfterTheOther() {
        let outer = Signal<Int, CombiningError>.pipe()
        let inners = [Probe<String>(), Probe<String>(), Probe<String>()]
        let recorder = CombiningTestRecorder<String, CombiningError>()
        outer.output.flatMap(.concat) { inners[$0].producer }.observe(recorder.observer)
        outer.input.send(value: 0)
        outer.input.send(value: 1)
        outer.input.send(value: 2)
        outer.input.sendCompleted()
        #expect(inners.map(\.starts.value) == [1, 0, 0])
        inners[0].input.send(value: "a")
        inners[0].input.sendCompleted()
        #expect(inners.map(\.starts.value) == [1, 1, 0])
        inners[1].input.send(value: "b")
        inners[1].input.sendCompleted()
        inners[2].input.send(value: "c")
        #expect(recorder.terminal == nil)
        inners[2].input.sendCompleted()
        #expect(recorder.events == [.value("a"), .value("b"), .value("c"), .completed])
    }

    @Test func flatMapConcatOfSynchronousProducersKeepsTheirOrder() {
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        SignalProducer<Int, CombiningError>(values: [1, 2, 3])
            .flatMap(.concat) { SignalProducer(values: [$0, $0 * 10]) }
            .start(recorder.observer)
        #expect(recorder.events == [.value(1), .value(10), .value(2), .value(20), .value(3), .value(30), .completed])
    }

    @Test func flatMapConcurrentRespectsItsLimitAndStartsInOrder() {
        let outer = Signal<Int, CombiningError>.pipe()
        let inners = (0..<5).map { _ in Probe<Int>() }
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        outer.output.flatMap(.concurrent(limit: 2)) { inners[$0].producer }.observe(recorder.observer)
        for i in 0..<5 { outer.input.send(value: i) }
        outer.input.sendCompleted()
        #expect(inners.map(\.starts.value) == [1, 1, 0, 0, 0])
        inners[1].input.sendCompleted()
        #expect(inners.map(\.starts.value) == [1, 1, 1, 0, 0])
        inners[0].input.send(value: 0)
        inners[2].input.send(value: 2)
        inners[2].input.sendCompleted()
        #expect(inners.map(\.starts.value) == [1, 1, 1, 1, 0])
        inners[0].input.sendCompleted()
        #expect(inners.map(\.starts.value) == [1, 1, 1, 1, 1])
        inners[3].input.sendCompleted()
        #expect(recorder.terminal == nil)
        inners[4].input.send(value: 4)
        inners[4].input.sendCompleted()
        #expect(recorder.events == [.value(0), .value(2), .value(4), .completed])
    }

    @Test func flatMapConcurrentNeverRunsMoreThanItsLimitUnderLoad() {
        let running = Counter()
        let peak = Lock(0)
        let recorder = CombiningTestRecorder<Int, Never>()
        SignalProducer<Int, Never>(values: Array(0..<40))
            .flatMap(.concurrent(limit: 3)) { value in
                SignalProducer<Int, Never> { observer, _ in
                    running.increment()
                    let now = running.value
                    peak.withLock { $0 = max($0, now) }
                    DispatchQueue.global().async {
                        running.decrement()
                        observer.send(value: value)
                        observer.sendCompleted()
                    }
                }
            }
            .start(recorder.observer)
        #expect(recorder.waitForTerminal())
        #expect(recorder.values.sorted() == Array(0..<40))
        #expect(peak.withLock { $0 } <= 3)
        #expect(recorder.overlaps == 0)
    }

    @Test func flatMapLatestDisposesThePreviousInnerProducer() {
        let outer = Signal<Int, CombiningError>.pipe()
        let inners = [Probe<String>(), Probe<String>()]
        let recorder = CombiningTestRecorder<String, CombiningError>()
        outer.output.flatMap(.latest) { inners[$0].producer }.observe(recorder.observer)
        outer.input.send(value: 0)
        inners[0].input.send(value: "a1")
        outer.input.send(value: 1)
        #expect(inners[0].isEnded)
        inners[0].input.send(value: "a2")
        inners[0].input.send(error: .boom)  // the replaced producer no longer matters
        inners[1].input.send(value: "b1")
        outer.input.sendCompleted()
        #expect(recorder.terminal == nil)
        inners[1].input.sendCompleted()
        #expect(recorder.events == [.value("a1"), .value("b1"), .completed])
    }

    @Test func flatMapLatestOfSynchronousProducersSendsEachOne() {
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        SignalProducer<Int, CombiningError>(values: [1, 2, 3])
            .flatMap(.latest) { SignalProducer(values: [$0, $0 * 10]) }
            .start(recorder.observer)
        #expect(recorder.events == [.value(1), .value(10), .value(2), .value(20), .value(3), .value(30), .completed])
    }

    @Test func flattenOfProducers() {
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        let producers = [SignalProducer<Int, CombiningError>(values: [1, 2]), SignalProducer(values: [3])]
        SignalProducer<SignalProducer<Int, CombiningError>, CombiningError>(values: producers).flatten(.merge).start(
            recorder.observer)
        #expect(recorder.events == [.value(1), .value(2), .value(3), .completed])

        let pipe = Signal<SignalProducer<Int, CombiningError>, CombiningError>.pipe()
        let signal = CombiningTestRecorder<Int, CombiningError>()
        pipe.output.flatten(.latest).observe(signal.observer)
        pipe.input.send(value: SignalProducer(values: [4, 5]))
        pipe.input.sendCompleted()
        #expect(signal.events == [.value(4), .value(5), .completed])
    }

    @Test func anInnerFailureFailsEverythingAndDisposesTheRest() {
        let outer = Probe<Int>()
        let first = Probe<Int>()
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        outer.producer.flatMap(.merge) { value in
            value == 0 ? first.producer : SignalProducer(error: .other)
        }.start(recorder.observer)
        outer.input.send(value: 0)
        first.input.send(value: 7)
        outer.input.send(value: 1)
        #expect(recorder.events == [.value(7), .failed(.other)])
        #expect(outer.isEnded && first.isEnded)
    }

    @Test func anOuterFailureDisposesTheInnerProducers() {
        let outer = Signal<Int, CombiningError>.pipe()
        let inner = Probe<Int>()
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        outer.output.flatMap(.concat) { _ in inner.producer }.observe(recorder.observer)
        outer.input.send(value: 0)
        outer.input.send(error: .boom)
        inner.input.send(value: 1)
        #expect(recorder.events == [.failed(.boom)])
        #expect(inner.isEnded)
    }

    @Test func disposingAFlatMappedProducerInterruptsAndDisposesAll() {
        let outer = Probe<Int>()
        let inners = [Probe<Int>(), Probe<Int>()]
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        let disposable = outer.producer.flatMap(.merge) { inners[$0].producer }.start(recorder.observer)
        outer.input.send(value: 0)
        outer.input.send(value: 1)
        disposable.dispose()
        #expect(recorder.events == [.interrupted])
        #expect(outer.isEnded && inners.allSatisfy { $0.isEnded })
    }

    @Test func flatMapFromAStreamThatCannotFail() {
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        SignalProducer<Int, Never>(values: [1, 2])
            .flatMap(.concat) { $0 == 1 ? SignalProducer<Int, CombiningError>(value: 1) : SignalProducer(error: .boom) }
            .start(recorder.observer)
        #expect(recorder.events == [.value(1), .failed(.boom)])

        // Both overloads apply when neither side can fail; the call must still compile.
        let never = CombiningTestRecorder<Int, Never>()
        SignalProducer<Int, Never>(values: [1, 2]).flatMap(.merge) { SignalProducer<Int, Never>(value: $0 * 2) }
            .start(never.observer)
        #expect(never.events == [.value(2), .value(4), .completed])

        let pipe = Signal<Int, Never>.pipe()
        let signal = CombiningTestRecorder<Int, CombiningError>()
        pipe.output.flatMap(.latest) { SignalProducer<Int, CombiningError>(value: $0) }.observe(signal.observer)
        pipe.input.send(value: 3)
        pipe.input.sendCompleted()
        #expect(signal.events == [.value(3), .completed])
    }

    @Test func aFinishedInnerSubscriptionIsReleasedWhileTheOuterRuns() {
        let outer = Signal<Int, CombiningError>.pipe()
        let inner = Signal<Int, CombiningError>.pipe()
        let tracker = CombiningWeakBox()
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        outer.output.flatMap(.merge) { _ in
            let canary = CombiningCanary()
            tracker.object = canary
            return SignalProducer<Int, CombiningError> { observer, lifetime in
                // The running subscription holds the canary until its lifetime ends.
                lifetime.observeEnded { withExtendedLifetime(canary) {} }
                lifetime += inner.output.observe(observer)
            }
        }.observe(recorder.observer)
        outer.input.send(value: 1)
        #expect(tracker.object != nil)
        inner.input.send(value: 2)
        inner.input.sendCompleted()
        #expect(tracker.object == nil)
        #expect(recorder.events == [.value(2)])
    }

    // MARK: - take(until:)

    @Test func takeUntilCompletesWhenTheTriggerSends() {
        let source = Signal<Int, CombiningError>.pipe()
        let trigger = Signal<(), Never>.pipe()
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        source.output.take(until: trigger.output).observe(recorder.observer)
        source.input.send(value: 1)
        source.input.send(value: 2)
        trigger.input.send(value: ())
        source.input.send(value: 3)
        #expect(recorder.events == [.value(1), .value(2), .completed])
    }

    @Test func takeUntilCompletesWhenTheTriggerCompletesAndIgnoresItsInterruption() {
        let source = Signal<Int, CombiningError>.pipe()
        let completing = Signal<(), Never>.pipe()
        let completed = CombiningTestRecorder<Int, CombiningError>()
        source.output.take(until: completing.output).observe(completed.observer)
        completing.input.sendCompleted()
        #expect(completed.events == [.completed])

        let interrupting = Signal<(), Never>.pipe()
        let interrupted = CombiningTestRecorder<Int, CombiningError>()
        source.output.take(until: interrupting.output).observe(interrupted.observer)
        interrupting.input.sendInterrupted()
        source.input.send(value: 1)
        source.input.send(error: .boom)
        #expect(interrupted.events == [.value(1), .failed(.boom)])
    }

    @Test func takeUntilOnProducersDisposesTheWork() {
        let work = Probe<Int>()
        let pipe = Signal<(), Never>.pipe()
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        work.producer.take(until: pipe.output).start(recorder.observer)
        work.input.send(value: 1)
        pipe.input.send(value: ())
        #expect(recorder.events == [.value(1), .completed])
        #expect(work.isEnded)

        let unstarted = Probe<Int>()
        let immediate = CombiningTestRecorder<Int, CombiningError>()
        unstarted.producer.take(until: SignalProducer<(), Never>(value: ())).start(immediate.observer)
        #expect(immediate.events == [.completed])
        #expect(unstarted.starts.value == 0)

        let triggerEnds = Counter()
        let trigger = SignalProducer<(), Never> { _, lifetime in lifetime.observeEnded { triggerEnds.increment() } }
        let other = Probe<Int>()
        let later = CombiningTestRecorder<Int, CombiningError>()
        let disposable = other.producer.take(until: trigger).start(later.observer)
        other.input.send(value: 5)
        #expect(triggerEnds.value == 0)
        disposable.dispose()
        #expect(later.events == [.value(5), .interrupted])
        #expect(other.isEnded && triggerEnds.value == 1)
    }

    // MARK: - share(replay:)

    @Test func shareStartsTheUpstreamOnceAndReplaysToLateSubscribers() {
        let upstream = Probe<Int>()
        let shared = upstream.producer.share(replay: 2)
        let first = CombiningTestRecorder<Int, CombiningError>()
        let second = CombiningTestRecorder<Int, CombiningError>()
        shared.start(first.observer)
        upstream.input.send(value: 1)
        upstream.input.send(value: 2)
        upstream.input.send(value: 3)
        shared.start(second.observer)
        upstream.input.send(value: 4)
        #expect(upstream.starts.value == 1)
        #expect(first.values == [1, 2, 3, 4])
        #expect(second.values == [2, 3, 4])
        upstream.input.sendCompleted()
        #expect(first.terminal == .completed && second.terminal == .completed)
        #expect(upstream.isEnded)
    }

    @Test func shareReplaysTheEndToSubscribersAfterTheUpstreamEnded() {
        let starts = Counter()
        let shared = SignalProducer<Int, CombiningError> { observer, _ in
            starts.increment()
            observer.send(value: 1)
            observer.send(value: 2)
            observer.send(error: .boom)
        }.share(replay: 1)
        let first = CombiningTestRecorder<Int, CombiningError>()
        let second = CombiningTestRecorder<Int, CombiningError>()
        shared.start(first.observer)
        shared.start(second.observer)
        #expect(first.events == [.value(1), .value(2), .failed(.boom)])
        #expect(second.events == [.value(2), .failed(.boom)])
        #expect(starts.value == 1)

        let none = CombiningTestRecorder<Int, CombiningError>()
        let replayNothing = SignalProducer<Int, CombiningError>(values: [1, 2]).share(replay: 0)
        replayNothing.start()
        replayNothing.start(none.observer)
        #expect(none.events == [.completed])
    }

    @Test func shareIsRefCounted() {
        let upstream = Probe<Int>()
        let shared = upstream.producer.share(replay: 1)
        let first = CombiningTestRecorder<Int, CombiningError>()
        let second = CombiningTestRecorder<Int, CombiningError>()
        let a = shared.start(first.observer)
        let b = shared.start(second.observer)
        upstream.input.send(value: 1)
        a.dispose()
        #expect(first.events == [.value(1), .interrupted])
        #expect(upstream.isRunning)
        upstream.input.send(value: 2)
        b.dispose()
        #expect(second.events == [.value(1), .value(2), .interrupted])
        #expect(upstream.isEnded)

        // A new start runs the upstream afresh, without the previous run's values.
        let third = CombiningTestRecorder<Int, CombiningError>()
        shared.start(third.observer)
        #expect(upstream.starts.value == 2)
        upstream.input.send(value: 3)
        #expect(third.values == [3])
    }

    @Test func aSharedSubscriberMayDisposeItselfFromItsCallback() {
        let upstream = Probe<Int>()
        let shared = upstream.producer.share(replay: 1)
        let recorder = CombiningTestRecorder<Int, CombiningError>()
        let own = Lock<(any Disposable)?>(nil)
        let disposable = shared.start { event in
            recorder.record(event)
            if case .value(2) = event { own.withLock { $0 }?.dispose() }
        }
        own.withLock { $0 = disposable }
        upstream.input.send(value: 1)
        upstream.input.send(value: 2)
        upstream.input.send(value: 3)
        #expect(recorder.events == [.value(1), .value(2), .interrupted])
        #expect(upstream.isEnded)
    }

    @Test func shareDeliversReplayAndLiveValuesInOrderUnderConcurrency() {
        let upstream = Signal<Int, Never>.pipe()
        let shared = SignalProducer(upstream.output).share(replay: 3)
        let anchor = CombiningTestRecorder<Int, Never>()
        shared.start(anchor.observer)
        let recorders = (0..<16).map { _ in CombiningTestRecorder<Int, Never>() }
        DispatchQueue.concurrentPerform(iterations: recorders.count + 1) { index in
            if index == recorders.count {
                for i in 0..<5_000 { upstream.input.send(value: i) }
                upstream.input.sendCompleted()
            } else {
                shared.start(recorders[index].observer)
            }
        }
        for recorder in [anchor] + recorders {
            #expect(recorder.waitForTerminal())
            let values = recorder.values
            // Replayed values then live ones: consecutive, no gap, no repeat, nothing reordered.
            #expect(zip(values, values.dropFirst()).allSatisfy { $1 == $0 + 1 })
            #expect(values.last == 4_999)
            #expect(recorder.terminal == .completed)
            #expect(recorder.overlaps == 0)
        }
    }
}

@Suite("flatMap at scale")
struct FlatMapScaleTests {
    /// Regression: the send function used to be re-wrapped for every inner producer, which made
    /// flatMap quadratic (20,000 inner producers took minutes); now this takes a fraction of a second.
    @Test func twentyThousandInnerProducersAllDeliver() {
        let count = Lock(0)
        let completed = Lock(false)
        SignalProducer<Int, Never>(values: Array(0..<20_000))
            .flatMap(.concurrent(limit: 64)) { SignalProducer<Int, Never>(value: $0) }
            .start { event in
                if case .value = event { count.withLock { $0 += 1 } }
                if case .completed = event { completed.withLock { $0 = true } }
            }
        #expect(count.withLock { $0 } == 20_000)
        #expect(completed.withLock { $0 })
    }
}

@Suite("promoteError")
struct PromoteErrorTests {
    struct Failure: Error {}

    @Test func aProducerThatCannotFailComposesWithOneThatCan() async {
        let promoted = SignalProducer<Int, Never>(values: [1, 2]).promoteError(Failure.self)
        let events = await promoted.concat(SignalProducer<Int, Failure>(error: Failure())).materialize().collect().value
        #expect(events?.count == 3)
        if case .failed = events?.last {} else { Issue.record("the second producer's failure comes through") }
    }

    @Test func aSignalThatCannotFailPassesItsValuesAndEnd() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let seen = Lock<[String]>([])
        _ = signal.promoteError(Failure.self).observe { event in seen.withLock { $0.append("\(event)") } }
        input.send(value: 7)
        input.sendCompleted()
        #expect(seen.withLock { $0 }.count == 2)
    }
}
