extension Operators {
    @inlinable
    static func filter<V, E>(_ isIncluded: @escaping @Sendable (V) -> Bool) -> EventTransform<V, E, V, E> {
        EventTransform { downstream, _ in
            Observer { event in
                if case .value(let value) = event, !isIncluded(value) { return }
                downstream.send(event)
            }
        }
    }
}

extension Signal {
    /// Keeps only the values for which `isIncluded` returns true.
    @inlinable
    public func filter(_ isIncluded: @escaping @Sendable (Value) -> Bool) -> Signal<Value, Failure> {
        lift(Operators.filter(isIncluded))
    }
}

extension SignalProducer {
    /// Keeps only the values for which `isIncluded` returns true.
    @inlinable
    public func filter(_ isIncluded: @escaping @Sendable (Value) -> Bool) -> SignalProducer<Value, Failure> {
        lift(Operators.filter(isIncluded))
    }
}
