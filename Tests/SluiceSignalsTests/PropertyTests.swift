import Dispatch
import SluiceSignals
import Testing

@Suite("Property")
struct PropertyTests {
    @Test func producerSendsCurrentValueFirstThenChanges() {
        let property = MutableProperty(1)
        let recorder = EventRecorder<Int, Never>()
        property.producer.start(recorder.observer)
        property.value = 2
        property.modify { $0 += 10 }
        #expect(recorder.values == [1, 2, 12])
        #expect(property.value == 12)
    }

    @Test func signalSendsOnlyChanges() {
        let property = MutableProperty("a")
        let recorder = EventRecorder<String, Never>()
        property.signal.observe(recorder.observer)
        property.value = "b"
        #expect(recorder.values == ["b"])
    }

    @Test func anObserverMaySetThePropertyItObserves() {
        let property = MutableProperty(0)
        let seen = Locked<[Int]>([])
        property.producer.startWithValues { value in
            seen.withLock { $0.append(value) }
            if value < 3 { property.value = value + 1 }
        }
        #expect(seen.value == [0, 1, 2, 3])
        #expect(property.value == 3)
    }

    @Test func concurrentWritesAreDeliveredInTheOrderTheyWereStored() {
        let property = MutableProperty(0)
        let seen = Locked<[Int]>([])
        property.signal.observeValues { value in seen.withLock { $0.append(value) } }
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<2_000 { property.modify { $0 += 1 } }
        }
        let delivered = seen.value
        #expect(delivered == Array(1...8_000))
        #expect(property.value == 8_000)
    }

    @Test func aComputedPropertyReadsItsValueWhenAskedAndPassesItsChangesOn() {
        let reads = Locked(0)
        let (changes, input) = Signal<Int, Never>.pipe()
        let property = Property<Int>(
            current: {
                reads.withLock { count -> Int in
                    count += 1
                    return count
                }
            }, changes: changes)
        #expect(reads.value == 0)
        #expect(property.value == 1)
        #expect(property.value == 2)

        let started = EventRecorder<Int, Never>()
        property.producer.start(started.observer)
        let observed = EventRecorder<Int, Never>()
        property.signal.observe(observed.observer)
        input.send(value: 10)
        input.sendCompleted()
        // The producer starts with a read of the value, then follows the changes; the signal
        // sends only the changes; both end with them.
        #expect(started.values == [3, 10])
        #expect(observed.values == [10])
        #expect(started.terminal == .completed && observed.terminal == .completed)
    }

    @Test func readOnlyPropertiesFollowTheirSource() {
        let source = MutableProperty(2)
        let doubled = source.readOnly.map { $0 * 2 }
        let recorder = EventRecorder<Int, Never>()
        doubled.producer.start(recorder.observer)
        source.value = 5
        #expect(doubled.value == 10)
        #expect(recorder.values == [4, 10])

        let constant = Property(value: "x")
        #expect(constant.value == "x")

        let (signal, input) = Signal<Int, Never>.pipe()
        let following = Property(initial: 0, then: signal)
        input.send(value: 9)
        #expect(following.value == 9)
    }

    @Test func deinitCompletesObservers() {
        let recorder = EventRecorder<Int, Never>()
        do {
            let property = MutableProperty(1)
            property.signal.observe(recorder.observer)
        }
        #expect(recorder.events == [.completed])
    }
}
