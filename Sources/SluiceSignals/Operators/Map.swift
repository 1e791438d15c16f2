extension Operators {
    @inlinable
    static func map<V, E, U>(_ transform: @escaping @Sendable (V) -> U) -> EventTransform<V, E, U, E> {
        EventTransform { downstream, _ in
            Observer { event in
                switch event {
                case .value(let value): downstream.send(.value(transform(value)))
                case .failed(let error): downstream.send(.failed(error))
                case .completed: downstream.send(.completed)
                case .interrupted: downstream.send(.interrupted)
                }
            }
        }
    }
}

extension Signal {
    /// Transforms each value.
    @inlinable
    public func map<U>(_ transform: @escaping @Sendable (Value) -> U) -> Signal<U, Failure> {
        lift(Operators.map(transform))
    }
}

extension SignalProducer {
    /// Transforms each value.
    @inlinable
    public func map<U>(_ transform: @escaping @Sendable (Value) -> U) -> SignalProducer<U, Failure> {
        lift(Operators.map(transform))
    }
}
