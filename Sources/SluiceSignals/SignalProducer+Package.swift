// Building blocks for the library's own modules (`package` access): cheaper than the public ways
// to the same result, with contracts too easy to break for users' code.

extension SignalProducer {
    /// A producer that calls `make` on every start and runs the producer it returns in place: with
    /// the same observer and the same lifetime, so without a gate or an inner subscription of its
    /// own (`make` runs on the starting thread, before anything is sent).
    @inlinable
    package static func deferred(_ make: @escaping @Sendable () -> SignalProducer) -> SignalProducer {
        SignalProducer(serialized: { observer, lifetime in
            make().startHandler(observer, lifetime)
        })
    }

    /// Like `deferred(_:)`, with the subscription's lifetime handed to `make`, which may attach
    /// what must live exactly as long as the subscription before the producer is even made.
    @inlinable
    package static func deferred(withLifetime make: @escaping @Sendable (Lifetime) -> SignalProducer) -> SignalProducer
    {
        SignalProducer(serialized: { observer, lifetime in
            make(lifetime).startHandler(observer, lifetime)
        })
    }
}

extension Lifetime {
    /// Ends the subscription this lifetime belongs to, as disposing the subscription would: the
    /// gates upstream interrupt, and the subscriber receives `interrupted`. A way for an operator
    /// to cancel its own subscription from another thread without a gate of its own.
    @inlinable
    package func end() {
        disposables.dispose()
    }
}
