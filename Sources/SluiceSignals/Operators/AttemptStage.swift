import Synchronization

extension SignalProducer {
    /// Passes each value on as it is while `check` accepts it; the first failure ends the stream.
    ///
    /// `attemptMap` with a transform that returns its value, without the copy: the event that
    /// arrived is the one sent on, so an accepted value is neither copied out of it nor into a
    /// new one (for a response, two retains and two releases each). The run of the first start is
    /// made with the producer, as `attemptMap`'s is (see `AttemptStage`).
    @inlinable
    package func attempt(
        _ check: @escaping @Sendable (Value) throws(Failure) -> Void
    ) -> SignalProducer<Value, Failure> {
        let stage = AttemptStage(upstream: startHandler, check: check)
        return SignalProducer(serialized: { downstream, lifetime in stage.start(consume downstream, lifetime) })
    }
}

/// One start of a producer's `attempt`: passes the events on until a check fails, then drops
/// whatever else arrives.
///
/// Made with the producer, for its first start; a later start makes a fresh one (`start`), so that
/// no start inherits another's state. It lets go of its downstream observer with the terminal
/// event, so that a producer kept after its start keeps nothing of that subscription.
@usableFromInline
final class AttemptStage<V: Sendable, E: Error>: Sendable {
    @usableFromInline let upstream: @Sendable (consuming Observer<V, E>, Lifetime) -> Void
    @usableFromInline let check: @Sendable (V) throws(E) -> Void
    /// Whether a start has taken this stage.
    @usableFromInline let isTaken: Atomic<Bool>
    /// Where events go until the terminal event or a failed check; nil after, so that nothing
    /// else goes through. Written by the start that takes the stage, before the upstream starts,
    /// and then only by `receive`, which events reach one at a time after that start (hence
    /// `nonisolated(unsafe)`, and no exclusivity checks).
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var downstream: Observer<V, E>?

    @inlinable
    init(
        upstream: @escaping @Sendable (consuming Observer<V, E>, Lifetime) -> Void,
        check: @escaping @Sendable (V) throws(E) -> Void
    ) {
        self.upstream = upstream
        self.check = check
        isTaken = Atomic(false)
    }

    /// Starts the upstream for one start: this stage for the first, a fresh one for any later.
    /// `downstream` is handed over (`consuming`) and kept without a retain.
    @inlinable
    func start(_ downstream: consuming Observer<V, E>, _ lifetime: Lifetime) {
        if isTaken.exchange(true, ordering: .acquiringAndReleasing) {
            AttemptStage(upstream: upstream, check: check).run(consume downstream, lifetime)
        } else {
            run(consume downstream, lifetime)
        }
    }

    /// Starts the upstream with this stage between it and `downstream`.
    @inlinable
    func run(_ downstream: consuming Observer<V, E>, _ lifetime: Lifetime) {
        self.downstream = consume downstream
        upstream(Observer { [self] event in receive(event) }, lifetime)
    }

    @inlinable
    func receive(_ event: Event<V, E>) {
        guard let downstream else { return }
        if case .value(let value) = event {
            do throws(E) {
                try check(value)
            } catch {
                self.downstream = nil
                downstream.send(error: error)
                return
            }
        } else {
            self.downstream = nil
        }
        downstream.send(event)
    }
}
