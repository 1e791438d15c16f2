extension Operators {
    static func skipRepeats<V, E>(_ isEquivalent: @escaping @Sendable (V, V) -> Bool) -> EventTransform<V, E, V, E> {
        EventTransform { downstream, _ in
            let previous = OperatorState<V?>(nil)
            return Observer { event in
                if case .value(let value) = event {
                    let last = previous.withLock { $0 }
                    if let last, isEquivalent(last, value) { return }
                    previous.withLock { $0 = value }
                }
                downstream.send(event)
            }
        }
    }
}

extension Signal {
    /// Drops values equivalent to the one before them.
    public func skipRepeats(_ isEquivalent: @escaping @Sendable (Value, Value) -> Bool) -> Signal<Value, Failure> {
        lift(Operators.skipRepeats(isEquivalent))
    }
}

extension Signal where Value: Equatable {
    /// Drops values equal to the one before them.
    public func skipRepeats() -> Signal<Value, Failure> {
        skipRepeats(==)
    }
}

extension SignalProducer {
    /// Drops values equivalent to the one before them.
    public func skipRepeats(
        _ isEquivalent: @escaping @Sendable (Value, Value) -> Bool
    ) -> SignalProducer<Value, Failure> {
        lift(Operators.skipRepeats(isEquivalent))
    }
}

extension SignalProducer where Value: Equatable {
    /// Drops values equal to the one before them.
    public func skipRepeats() -> SignalProducer<Value, Failure> {
        skipRepeats(==)
    }
}
