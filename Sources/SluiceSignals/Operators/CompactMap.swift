extension Operators {
    @inlinable
    static func compactMap<V, E, U>(_ transform: @escaping @Sendable (V) -> U?) -> EventTransform<V, E, U, E> {
        EventTransform { downstream, _ in
            Observer { event in
                switch event {
                case .value(let value):
                    if let mapped = transform(value) { downstream.send(value: mapped) }
                default:
                    downstream.sendTerminal(event)
                }
            }
        }
    }
}

extension Signal {
    /// Transforms each value, dropping those for which `transform` returns nil.
    @inlinable
    public func compactMap<U>(_ transform: @escaping @Sendable (Value) -> U?) -> Signal<U, Failure> {
        lift(Operators.compactMap(transform))
    }
}

extension SignalProducer {
    /// Transforms each value, dropping those for which `transform` returns nil.
    @inlinable
    public func compactMap<U>(_ transform: @escaping @Sendable (Value) -> U?) -> SignalProducer<U, Failure> {
        lift(Operators.compactMap(transform))
    }
}
