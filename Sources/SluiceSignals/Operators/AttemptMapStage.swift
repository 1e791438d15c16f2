import Synchronization

extension SignalProducer {
    /// Transforms each value with a closure that may fail; the first failure ends the stream.
    ///
    /// The run of the producer's first start is made here, with the producer, and is the start
    /// handler's only capture: no closure context, and no run to make when the producer starts
    /// once, as a request's producer does (see `AttemptMapStage`).
    @inlinable
    public func attemptMap<U>(
        _ transform: @escaping @Sendable (Value) throws(Failure) -> U
    ) -> SignalProducer<U, Failure> {
        let stage = AttemptMapStage(upstream: startHandler, transform: transform)
        return SignalProducer<U, Failure>(serialized: { downstream, lifetime in
            stage.start(consume downstream, lifetime)
        })
    }
}

/// One start of a producer's `attemptMap` (or one observation of a signal's): transforms values
/// until a transform fails, then drops whatever else arrives.
///
/// Made with the producer, for its first start; a later start makes a fresh one (`start`), so that
/// no start inherits another's state. It lets go of its downstream observer with the terminal
/// event, so that a producer kept after its start keeps nothing of that subscription.
@usableFromInline
final class AttemptMapStage<V: Sendable, E: Error, U: Sendable>: Sendable {
    @usableFromInline let upstream: @Sendable (consuming Observer<V, E>, Lifetime) -> Void
    @usableFromInline let transform: @Sendable (V) throws(E) -> U
    /// Whether a start has taken this stage.
    @usableFromInline let isTaken: Atomic<Bool>
    /// Where values go until the terminal event or a failed transform; nil after, so that nothing
    /// else goes through. Written by the start that takes the stage, before the upstream starts,
    /// and then only by `receive`, which events reach one at a time after that start (hence
    /// `nonisolated(unsafe)`, and no exclusivity checks).
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var downstream: Observer<U, E>?

    @inlinable
    init(
        upstream: @escaping @Sendable (consuming Observer<V, E>, Lifetime) -> Void,
        transform: @escaping @Sendable (V) throws(E) -> U
    ) {
        self.upstream = upstream
        self.transform = transform
        isTaken = Atomic(false)
    }

    /// Starts the upstream for one start: this stage for the first, a fresh one for any later.
    /// `downstream` is handed over (`consuming`) and kept without a retain; the first start runs
    /// on `self` as it is, not on a reference to it picked between two (one retain and release).
    @inlinable
    func start(_ downstream: consuming Observer<U, E>, _ lifetime: Lifetime) {
        if isTaken.exchange(true, ordering: .acquiringAndReleasing) {
            AttemptMapStage(upstream: upstream, transform: transform).run(consume downstream, lifetime)
        } else {
            run(consume downstream, lifetime)
        }
    }

    /// Starts the upstream with this stage between it and `downstream`.
    @inlinable
    func run(_ downstream: consuming Observer<U, E>, _ lifetime: Lifetime) {
        self.downstream = consume downstream
        upstream(Observer { [self] event in receive(event) }, lifetime)
    }

    @inlinable
    func receive(_ event: Event<V, E>) {
        guard let downstream else { return }
        switch event {
        case .value(let value):
            do throws(E) {
                downstream.send(value: try transform(value))
            } catch {
                self.downstream = nil
                downstream.send(error: error)
            }
        default:
            self.downstream = nil
            downstream.sendTerminal(event)
        }
    }
}
