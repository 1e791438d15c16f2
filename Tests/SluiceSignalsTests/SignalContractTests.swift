import Dispatch
import Foundation
import SluiceSignals
import Synchronization
import Testing

@Suite("Signal contract")
struct SignalContractTests {
    @Test func pipeDeliversValuesThenOneTerminalAndNothingAfter() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let recorder = EventRecorder<Int, TestError>()
        signal.observe(recorder.observer)
        input.send(value: 1)
        input.send(value: 2)
        input.send(error: .boom)
        input.send(value: 3)
        input.sendCompleted()
        input.sendInterrupted()
        #expect(recorder.events == [.value(1), .value(2), .failed(.boom)])
    }

    @Test func everyObserverGetsEveryEvent() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let a = EventRecorder<Int, Never>()
        let b = EventRecorder<Int, Never>()
        signal.observe(a.observer)
        input.send(value: 1)
        signal.observe(b.observer)
        input.send(value: 2)
        input.sendCompleted()
        #expect(a.events == [.value(1), .value(2), .completed])
        #expect(b.events == [.value(2), .completed])
    }

    @Test func observingATerminatedSignalInterruptsAtOnce() {
        let (signal, input) = Signal<Int, Never>.pipe()
        input.sendCompleted()
        let recorder = EventRecorder<Int, Never>()
        signal.observe(recorder.observer)
        #expect(recorder.events == [.interrupted])
    }

    @Test func aValueSentFromInsideAnObserverIsQueuedInOrderNotRecursive() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let log = Lock<[String]>([])
        let depth = Locked<Int>(0)
        let maxDepth = Locked<Int>(0)
        signal.observeValues { value in
            let d = depth.add(1)
            if d > maxDepth.value { maxDepth.value = d }
            log.withLock { $0.append("begin \(value)") }
            if value < 3 {
                input.send(value: value + 10)
                input.send(value: value + 1)
            }
            log.withLock { $0.append("end \(value)") }
            depth.add(-1)
        }
        input.send(value: 1)
        #expect(maxDepth.value == 1)
        #expect(
            log.withLock { $0 } == [
                "begin 1", "end 1", "begin 11", "end 11", "begin 2", "end 2",
                "begin 12", "end 12", "begin 3", "end 3",
            ])
    }

    @Test func terminalSentFromInsideAnObserverEndsTheSignalAfterTheCurrentEvent() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let recorder = EventRecorder<Int, Never>()
        signal.observeValues { _ in input.sendCompleted() }
        signal.observe(recorder.observer)
        input.send(value: 1)
        input.send(value: 2)
        #expect(recorder.events == [.value(1), .completed])
    }

    @Test func deliveryIsSerialWhenManyThreadsSendAtOnce() {
        let (signal, input) = Signal<Int, Never>.pipe()
        let inside = Locked<Bool>(false)
        let overlaps = Locked<Int>(0)
        let count = Locked<Int>(0)
        let perThreadOrderBroken = Locked<Int>(0)
        let lastSeen = Lock<[Int: Int]>([:])
        signal.observeValues { value in
            if inside.exchange(true) { overlaps.add(1) }
            let thread = value / 1_000_000
            let sequence = value % 1_000_000
            lastSeen.withLock { seen in
                if let last = seen[thread], last >= sequence { perThreadOrderBroken.add(1) }
                seen[thread] = sequence
            }
            count.add(1)
            inside.value = false
        }
        let threads = 8
        let perThread = 20_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for i in 0..<perThread { input.send(value: thread * 1_000_000 + i) }
        }
        // A sender may return while another thread still drains its event; wait for the queue.
        let deadline = Date().addingTimeInterval(10)
        while count.value < threads * perThread, Date() < deadline { usleep(1000) }
        #expect(count.value == threads * perThread)
        #expect(overlaps.value == 0)
        #expect(perThreadOrderBroken.value == 0)
    }

    @Test func exactlyOneTerminalWhenThreadsRaceToTerminate() {
        for _ in 0..<200 {
            let (signal, input) = Signal<Int, TestError>.pipe()
            let recorder = EventRecorder<Int, TestError>()
            signal.observe(recorder.observer)
            DispatchQueue.concurrentPerform(iterations: 4) { i in
                input.send(value: i)
                switch i {
                case 0: input.sendCompleted()
                case 1: input.send(error: .boom)
                case 2: input.sendInterrupted()
                default: input.send(value: 99)
                }
            }
            #expect(recorder.waitForTerminal())
            #expect(recorder.terminalCount == 1)
            #expect(recorder.events.last?.isTerminating == true)
        }
    }

    @Test func disposingAnObservationDetachesAndReleasesTheObserver() {
        let (signal, input) = Signal<Int, Never>.pipe()
        weak var weakCanary: Canary?
        let recorder = EventRecorder<Int, Never>()
        let disposable: (any Disposable)? = {
            let canary = Canary()
            weakCanary = canary
            return signal.observeValues { value in
                withExtendedLifetime(canary) { recorder.record(.value(value)) }
            }
        }()
        input.send(value: 1)
        #expect(weakCanary != nil)
        disposable?.dispose()
        disposable?.dispose()
        input.send(value: 2)
        #expect(recorder.values == [1])
        #expect(weakCanary == nil)
    }

    @Test func aTerminatedSignalReleasesItsObservers() {
        let (signal, input) = Signal<Int, Never>.pipe()
        weak var weakCanary: Canary?
        do {
            let canary = Canary()
            weakCanary = canary
            signal.observeValues { _ in withExtendedLifetime(canary) {} }
        }
        #expect(weakCanary != nil)
        input.sendCompleted()
        #expect(weakCanary == nil)
    }

    @Test func disposalIsIdempotentAndThreadSafe() {
        let runs = Locked<Int>(0)
        for _ in 0..<500 {
            let disposable = AnyDisposable { runs.add(1) }
            DispatchQueue.concurrentPerform(iterations: 4) { _ in disposable.dispose() }
            #expect(disposable.isDisposed)
        }
        #expect(runs.value == 500)
    }

    @Test func compositeAndSerialDisposables() {
        let log = Lock<[String]>([])
        let composite = CompositeDisposable()
        composite += AnyDisposable { log.withLock { $0.append("a") } }
        let handle = composite.add(AnyDisposable { log.withLock { $0.append("removed") } })
        composite.add { log.withLock { $0.append("b") } }
        handle?.dispose()
        composite.dispose()
        composite.dispose()
        composite += AnyDisposable { log.withLock { $0.append("late") } }
        #expect(log.withLock { $0 } == ["a", "b", "late"])

        let serial = SerialDisposable()
        let first = AnyDisposable()
        let second = AnyDisposable()
        serial.inner = first
        serial.inner = second
        #expect(first.isDisposed && !second.isDisposed)
        serial.dispose()
        #expect(second.isDisposed)
        let third = AnyDisposable()
        serial.inner = third
        #expect(third.isDisposed)
    }

    @Test func aCompositeDisposesInTheOrderOfAddingWhateverWasRemoved() {
        // The first entries are kept inline and later ones in an array: removing some of either
        // kind must neither reorder the rest nor lose one.
        for count in 1...7 {
            for removed in [Set<Int>(), [0], [1], [2], [0, 2], [count - 1], Set(0..<count)] {
                let log = Lock<[Int]>([])
                let composite = CompositeDisposable()
                var handles: [(any Disposable)?] = []
                for index in 0..<count {
                    handles.append(composite.add(AnyDisposable { log.withLock { $0.append(index) } }))
                }
                for index in removed where index < count { handles[index]?.dispose() }
                composite += AnyDisposable { log.withLock { $0.append(100) } }
                composite.dispose()
                let expected = (0..<count).filter { !removed.contains($0) } + [100]
                #expect(log.withLock { $0 } == expected, "\(count) entries, \(removed.sorted()) removed")
            }
        }
    }

    @Test func lifetimeEndsWithItsToken() {
        let ended = Locked<Bool>(false)
        do {
            let (lifetime, token) = Lifetime.make()
            lifetime.observeEnded { ended.value = true }
            #expect(!lifetime.hasEnded)
            withExtendedLifetime(token) {}
        }
        #expect(ended.value)
        #expect(Lifetime.empty.hasEnded)
    }

    @Test func signalGeneratorLifetimeEndsOnTerminal() {
        let ended = Locked<Bool>(false)
        let inputBox = Lock<Observer<Int, Never>?>(nil)
        let signal = Signal<Int, Never> { observer, lifetime in
            inputBox.withLock { $0 = observer }
            lifetime.observeEnded { ended.value = true }
        }
        let recorder = EventRecorder<Int, Never>()
        signal.observe(recorder.observer)
        let input = inputBox.withLock { $0 }!
        input.send(value: 7)
        #expect(!ended.value)
        input.sendCompleted()
        #expect(ended.value)
        #expect(recorder.events == [.value(7), .completed])
    }
}
