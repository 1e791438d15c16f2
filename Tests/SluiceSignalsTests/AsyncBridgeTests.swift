import Foundation
import SluiceSignals
import Testing

@Suite("Async bridges")
struct AsyncBridgeTests {
    @Test func valueReturnsTheFirstValueAndDisposes() async throws {
        let ended = Locked(false)
        let producer = SignalProducer<Int, TestError> { observer, lifetime in
            lifetime.observeEnded { ended.value = true }
            observer.send(value: 42)
            observer.send(value: 43)
        }
        let value = try await producer.value
        #expect(value == 42)
        #expect(ended.value)
    }

    @Test func valueThrowsTheTypedFailure() async {
        do {
            _ = try await SignalProducer<Int, TestError>(error: .boom).value
            Issue.record("expected a failure")
        } catch {
            // `error` is statically a TestError thanks to typed throws.
            #expect(error == .boom)
        }
    }

    @Test func valueOfAnEmptyProducerThrowsNoValue() async {
        await #expect(throws: TestError.ended(.completed)) {
            _ = try await SignalProducer<Int, TestError>.empty.value
        }
    }

    @Test func cancellingTheTaskDisposesTheProducer() async {
        let ended = Locked(false)
        let started = Locked(false)
        let producer = SignalProducer<Int, TestError> { _, lifetime in
            started.value = true
            lifetime.observeEnded { ended.value = true }
        }
        let task = Task { try await producer.value }
        while !started.value { await Task.yield() }
        task.cancel()
        let result = await task.result
        #expect(ended.value)
        #expect(throws: TestError.ended(.interrupted)) { try result.get() }
    }

    @Test func neverFailingProducersReturnOptionalValues() async {
        let value = await SignalProducer<Int, Never>(value: 1).value
        #expect(value == 1)
        let none = await SignalProducer<Int, Never>.empty.value
        #expect(none == nil)
    }

    @Test func valuesIteratesAndThrows() async {
        var collected: [Int] = []
        do {
            let producer = SignalProducer<Int, TestError>(values: [1, 2, 3]).concat(SignalProducer(error: .boom))
            for try await value in producer.values { collected.append(value) }
            Issue.record("expected a failure")
        } catch {
            #expect(error == .boom)
        }
        #expect(collected == [1, 2, 3])
    }

    @Test func signalValuesEndWhenTheSignalCompletes() async throws {
        let (signal, input) = Signal<Int, Never>.pipe()
        // Making the iterator subscribes, so nothing sent after this line is missed.
        let iterator = signal.values.makeAsyncIterator()
        let consumer = Task {
            var iterator = iterator
            var seen: [Int] = []
            while let value = await iterator.next() { seen.append(value) }
            return seen
        }
        input.send(value: 1)
        input.send(value: 2)
        input.sendCompleted()
        let seen = await consumer.value
        #expect(seen == [1, 2])
    }

    @Test func cancellingIterationDisposesTheSubscription() async {
        let ended = Locked(false)
        let producer = SignalProducer<Int, Never> { observer, lifetime in
            lifetime.observeEnded { ended.value = true }
            observer.send(value: 1)
        }
        let task = Task {
            var count = 0
            for await _ in producer.values { count += 1 }
            return count
        }
        try? await Task.sleep(for: .milliseconds(50))
        task.cancel()
        let count = await task.value
        #expect(count == 1)
        #expect(ended.value)
    }

    @Test func asyncOperationProducerRunsOnEveryStart() async throws {
        let runs = Locked(0)
        let producer = SignalProducer<Int, TestError> { () async throws(TestError) -> Int in
            runs.add(1)
        }
        #expect(runs.value == 0)
        let first = try await producer.value
        let second = try await producer.value
        #expect(first == 1)
        #expect(second == 2)

        let failing = SignalProducer<Int, TestError> { () async throws(TestError) -> Int in throw .boom }
        await #expect(throws: TestError.boom) { _ = try await failing.value }
    }

    @Test func aTerminalEventSentDuringTheStartEndsTheLifetimeAsStartDoes() async {
        // Whatever the start handler does after its terminal event sees the lifetime ended, under
        // `firstEvent()` as under `start`.
        let ended = Locked<[Bool]>([])
        let producer = SignalProducer<Int, Never> { observer, lifetime in
            observer.sendCompleted()
            ended.withLock { $0.append(lifetime.hasEnded) }
        }
        producer.start()
        _ = await producer.firstEvent()
        #expect(ended.value == [true, true])
    }

    @Test func firstEventStopsASynchronousSequenceAfterItsFirstValue() async {
        /// 1 to 1,000, counting the values it makes.
        struct Counting: Sequence, Sendable {
            let produced: Locked<Int>
            func makeIterator() -> AnyIterator<Int> {
                let produced = self.produced
                return AnyIterator {
                    let next = produced.add(1)
                    return next <= 1_000 ? next : nil
                }
            }
        }
        let produced = Locked(0)
        let event = await SignalProducer<Int, Never>(values: Counting(produced: produced)).firstEvent()
        #expect(event.value == 1)
        #expect(produced.value < 1_000)
    }

    @Test func aTaskCancelledBeforeTheStartStartsTheWorkWithItsLifetimeEnded() async {
        let endedAtStart = Locked<Bool?>(nil)
        let task = Task {
            // Cancelled before the await below begins.
            while !Task.isCancelled { await Task.yield() }
            return await SignalProducer<Int, Never> { _, lifetime in
                endedAtStart.value = lifetime.hasEnded
            }.firstEvent()
        }
        task.cancel()
        let event = await task.value
        #expect(endedAtStart.value == true)
        #expect(event.isInterrupted)
    }
}
