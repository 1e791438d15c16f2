extension SignalProducer {
    /// Builds an operator out of an observer: on every start, `makeObserver` receives the
    /// downstream observer and the subscription's lifetime and returns the observer that receives
    /// this producer's events.
    ///
    /// This is how the library's own operators are made, and the cheapest way to write one: no
    /// gate and no inner subscription, just one more observer on the path of every event. The
    /// returned observer receives events serially and in the grammar of `Event`; it must send
    /// downstream only from within those calls (so its own sends stay serial), send nothing after
    /// a terminal event, and may drop or transform what it receives. Work that must send from
    /// other threads or outlive an event belongs in `SignalProducer.init(_:)`, whose gate
    /// serializes it.
    ///
    ///     // Doubles every value, and passes failures and the end on unchanged.
    ///     let doubled = numbers.lift { (downstream: Observer<Int, Never>, _) in
    ///         Observer { event in
    ///             if case .value(let n) = event { downstream.send(value: 2 * n) } else { downstream.send(event) }
    ///         }
    ///     }
    @inlinable
    public func lift<U: Sendable, F: Error>(
        _ makeObserver: @escaping @Sendable (Observer<U, F>, Lifetime) -> Observer<Value, Failure>
    ) -> SignalProducer<U, F> {
        // Not through `EventTransform`: fitting `makeObserver` to its handed-over observer would
        // wrap it in a thunk, one more object per producer.
        let source = startHandler
        return SignalProducer<U, F>(serialized: { downstream, lifetime in
            source(makeObserver(downstream, lifetime), lifetime)
        })
    }
}
