extension Operators {
    static func scan<V, E, U: Sendable>(
        _ initial: U, _ next: @escaping @Sendable (U, V) -> U
    ) -> EventTransform<V, E, U, E> {
        EventTransform { downstream, _ in
            let accumulator = OperatorState(initial)
            return Observer { event in
                switch event {
                case .value(let value):
                    // Input is serial: read, combine outside the lock, then store.
                    let updated = next(accumulator.withLock { $0 }, value)
                    accumulator.withLock { $0 = updated }
                    downstream.send(value: updated)
                default:
                    downstream.sendTerminal(event)
                }
            }
        }
    }
}

extension Signal {
    /// Sends each intermediate result of combining the values with an accumulator.
    public func scan<U: Sendable>(_ initial: U, _ next: @escaping @Sendable (U, Value) -> U) -> Signal<U, Failure> {
        lift(Operators.scan(initial, next))
    }
}

extension SignalProducer {
    /// Sends each intermediate result of combining the values with an accumulator.
    public func scan<U: Sendable>(
        _ initial: U, _ next: @escaping @Sendable (U, Value) -> U
    ) -> SignalProducer<U, Failure> {
        lift(Operators.scan(initial, next))
    }

    /// Sends the final result of combining the values with an accumulator, when the stream completes.
    public func reduce<U: Sendable>(
        _ initial: U, _ next: @escaping @Sendable (U, Value) -> U
    ) -> SignalProducer<U, Failure> {
        scan(initial, next).collect().map { $0.last ?? initial }
    }
}
