extension Operators {
    @inlinable
    static func mapError<V, E, F>(_ transform: @escaping @Sendable (E) -> F) -> EventTransform<V, E, V, F> {
        EventTransform { downstream, _ in
            Observer { event in downstream.send(event.mapError(transform)) }
        }
    }
}

extension Signal {
    /// Transforms the failure.
    @inlinable
    public func mapError<F>(_ transform: @escaping @Sendable (Failure) -> F) -> Signal<Value, F> {
        lift(Operators.mapError(transform))
    }
}

extension SignalProducer {
    /// Transforms the failure.
    @inlinable
    public func mapError<F>(_ transform: @escaping @Sendable (Failure) -> F) -> SignalProducer<Value, F> {
        lift(Operators.mapError(transform))
    }
}
