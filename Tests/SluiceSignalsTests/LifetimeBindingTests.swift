import SluiceSignals
import Synchronization
import Testing

/// Work bound to an owner's lifetime (`take(during:)`, `Lifetime.ended`), and a replay that starts
/// its work once and keeps the result (`replayLazily(upTo:)`).
@Suite("Lifetimes and lazy replay")
struct LifetimeBindingTests {
    /// A producer that counts its starts and the ends of their lifetimes, fed by hand.
    private final class Source: Sendable {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let starts = Mutex(0)
        let ends = Mutex(0)
        var producer: SignalProducer<Int, TestError> {
            SignalProducer { [self] observer, lifetime in
                starts.withLock { $0 += 1 }
                lifetime.observeEnded { self.ends.withLock { $0 += 1 } }
                lifetime += signal.observe(observer)
            }
        }
    }

    private func completed(_ recorder: EventRecorder<(), Never>) -> Bool {
        guard recorder.events.count == 1, case .completed = recorder.events[0] else { return false }
        return true
    }

    @Test func endedCompletesWhenTheLifetimeEndsAndAtOnceAfterwards() {
        let (lifetime, token) = Lifetime.make()
        let before = EventRecorder<(), Never>()
        lifetime.ended.observe(before.observer)
        #expect(before.events.isEmpty)
        token.dispose()
        #expect(completed(before))
        let after = EventRecorder<(), Never>()
        lifetime.ended.observe(after.observer)
        #expect(completed(after))
    }

    @Test func takeDuringCompletesAndDisposesTheWorkWhenTheOwnerGoesAway() {
        let source = Source()
        let recorder = EventRecorder<Int, TestError>()
        var (lifetime, token): (Lifetime, Lifetime.Token?) = Lifetime.make()
        source.producer.take(during: lifetime).start(recorder.observer)
        source.input.send(value: 1)
        #expect(source.starts.withLock { $0 } == 1)
        token = nil  // the owner is released: its token deinitializes
        #expect(token == nil)
        #expect(lifetime.hasEnded)
        lifetime = .empty
        #expect(recorder.events == [.value(1), .completed])
        #expect(source.ends.withLock { $0 } == 1, "the work was disposed")
        source.input.send(value: 2)
        #expect(recorder.values == [1])
    }

    @Test func takeDuringAnEndedLifetimeStartsNothing() {
        let source = Source()
        let recorder = EventRecorder<Int, TestError>()
        source.producer.take(during: .empty).start(recorder.observer)
        #expect(recorder.events == [.completed])
        #expect(source.starts.withLock { $0 } == 0)
    }

    @Test func replayLazilyStartsOnceAndKeepsTheValueForLaterSubscribers() async throws {
        let starts = Mutex(0)
        let shared = SignalProducer<Int, TestError> { observer, _ in
            starts.withLock { $0 += 1 }
            observer.send(value: 42)
            observer.sendCompleted()
        }.replayLazily(upTo: 1)
        #expect(starts.withLock { $0 } == 0, "nothing starts before the first subscriber")
        let a = try await shared.value
        let b = try await shared.value
        let c = try await shared.value
        #expect([a, b, c] == [42, 42, 42])
        #expect(starts.withLock { $0 } == 1)
    }

    @Test func replayLazilyKeepsRunningWhenEverySubscriberLeaves() {
        let source = Source()
        let shared = source.producer.replayLazily(upTo: 2)
        let first = EventRecorder<Int, TestError>()
        let subscription = shared.start(first.observer)
        source.input.send(value: 1)
        subscription.dispose()
        #expect(first.events == [.value(1), .interrupted])
        #expect(source.ends.withLock { $0 } == 0, "the run goes on")
        source.input.send(value: 2)
        source.input.send(value: 3)
        let second = EventRecorder<Int, TestError>()
        shared.start(second.observer)
        #expect(second.values == [2, 3], "the latest two values, replayed")
        source.input.sendCompleted()
        #expect(second.terminal == .completed)
        let third = EventRecorder<Int, TestError>()
        shared.start(third.observer)
        #expect(third.events == [.value(2), .value(3), .completed])
        #expect(source.starts.withLock { $0 } == 1)
    }
}

/// `startWithCompletion` on producers of any failure that can say "no value".
@Suite("Completion handlers")
struct CompletionHandlerTests {
    @Test func anInterruptionAfterAValueEndsWithThatValueAndBeforeOneWithNoValue() {
        let (signal, input) = Signal<Int, TestError>.pipe()
        let producer = SignalProducer<Int, TestError> { observer, lifetime in lifetime += signal.observe(observer) }
        let results = Lock<[Result<Int, TestError>]>([])
        let first = producer.startWithCompletion { result in results.withLock { $0.append(result) } }
        input.send(value: 7)
        first.dispose()
        let second = producer.startWithCompletion { result in results.withLock { $0.append(result) } }
        second.dispose()
        #expect(results.withLock { $0 } == [.success(7), .failure(.ended(.interrupted))])
    }
}
