// Building blocks for the library's own modules (`package` access): cheaper than the public ways
// to the same result, with contracts too easy to break for users' code.

extension SignalProducer {
    /// A producer whose every start runs `startHandler` with the subscription's observer and
    /// lifetime directly: no gate, so the handler must send serially and in the grammar of `Event`
    /// (as operators do); see `run(into:_:)` for handing the subscription on.
    @inlinable
    package static func serial(
        _ startHandler: @escaping @Sendable (consuming Observer<Value, Failure>, Lifetime) -> Void
    )
        -> SignalProducer
    {
        SignalProducer(serialized: startHandler)
    }

    /// The gate `init(_:)` puts between a start handler and the subscriber, for a handler written
    /// with `serial(_:)`: sends through the returned observer, from any thread, reach `downstream`
    /// one at a time and in order, and `downstream` gets `interrupted` when `lifetime` ends first.
    /// (One closure per producer, where `init(_:)` wraps the handler in a second.)
    @inlinable
    package static func gate(_ downstream: Observer<Value, Failure>, _ lifetime: Lifetime) -> Observer<Value, Failure> {
        Operators.serialized(downstream, lifetime)
    }

    /// Runs this producer's work as part of an enclosing subscription: its events go to `observer`
    /// (which receives them serially) and it ends with `lifetime`. The same as starting it inside
    /// `lift`, without the derived producer and its closures. The observer is handed over
    /// (`consuming`), as a start's is: one made for the call reaches the work without a retain.
    @inlinable
    package func run(into observer: consuming Observer<Value, Failure>, _ lifetime: Lifetime) {
        startHandler(consume observer, lifetime)
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
