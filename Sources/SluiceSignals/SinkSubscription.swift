import Synchronization

/// A started producer's subscription and its sink, in one object: the composite that the
/// subscription's lifetime disposes, and the end of the operator chain, which hands each event to
/// `delivery`, drops anything after the terminal event and ends the lifetime once that event is
/// delivered.
///
/// One object per start instead of two: the sink's observer captures this object alone, which
/// needs no closure context of its own. Events arrive serially (see `SignalCore`), so the flag
/// needs no stronger ordering than a relaxed load before the terminal event. The user's observer or
/// closure is released with the operator chain, which the source's gate lets go of as soon as it
/// has delivered its terminal event.
@usableFromInline
final class SinkSubscription<Value: Sendable, Failure: Error>: CompositeDisposable, @unchecked Sendable {
    // `@unchecked`: `delivery` is touched only by `receive`, which events reach one at a time;
    // `terminated` is atomic, and the composite's state is guarded by its lock.
    /// Where events go; let go of with the terminal event, so that a subscription the user keeps
    /// does not keep the user's observer or closure (and what it captures) alive.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var delivery: SinkDelivery<Value, Failure>?
    /// Whether the terminal event was delivered.
    @usableFromInline let terminated: Atomic<Bool>

    @inlinable
    init(_ delivery: consuming SinkDelivery<Value, Failure>) {
        self.delivery = delivery
        terminated = Atomic(false)
        super.init()
    }

    /// The observer at the end of the operator chain.
    @inlinable
    var sink: Observer<Value, Failure> {
        Observer { [self] event in receive(event) }
    }

    @inlinable
    func receive(_ event: Event<Value, Failure>) {
        if terminated.load(ordering: .relaxed) { return }
        if event.isTerminating {
            // An exchange, not a store: a start handler written with `serial(_:)` promises serial
            // sends, and this keeps the terminal event single even if one breaks that promise.
            guard !terminated.exchange(true, ordering: .acquiringAndReleasing) else { return }
            // Moved out, not copied: no retain and release of the user's closure.
            self.delivery.take()?.deliverLast(event)
            dispose()
        } else {
            delivery?.deliver(event)
        }
    }
}
