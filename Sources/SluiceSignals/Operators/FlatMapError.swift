extension Operators {
    static func flatMapError<V, E, F>(
        _ handler: @escaping @Sendable (E) -> SignalProducer<V, F>
    ) -> EventTransform<V, E, V, F> {
        EventTransform { downstream, lifetime in
            Observer { event in
                switch event {
                case .value(let value): downstream.send(value: value)
                case .completed: downstream.sendCompleted()
                case .interrupted: downstream.sendInterrupted()
                case .failed(let error):
                    // The source has ended, so the replacement's events cannot overlap its own.
                    lifetime += handler(error).start(Observer(downstream.send))
                }
            }
        }
    }
}

extension Signal {
    /// Replaces a failure with the events of the producer that `handler` returns for it.
    public func flatMapError<F>(_ handler: @escaping @Sendable (Failure) -> SignalProducer<Value, F>) -> Signal<
        Value, F
    > {
        lift(Operators.flatMapError(handler))
    }
}

extension SignalProducer {
    /// Replaces a failure with the events of the producer that `handler` returns for it.
    public func flatMapError<F>(
        _ handler: @escaping @Sendable (Failure) -> SignalProducer<Value, F>
    ) -> SignalProducer<Value, F> {
        lift(Operators.flatMapError(handler))
    }
}
