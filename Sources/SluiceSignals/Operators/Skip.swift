extension Operators {
    static func skip<V, E>(first count: Int) -> EventTransform<V, E, V, E> {
        EventTransform { downstream, _ in
            let remaining = OperatorState(count)
            return Observer { event in
                if case .value = event {
                    let skip = remaining.withLock { left -> Bool in
                        guard left > 0 else { return false }
                        left -= 1
                        return true
                    }
                    if skip { return }
                }
                downstream.send(event)
            }
        }
    }

    static func skip<V, E>(while predicate: @escaping @Sendable (V) -> Bool) -> EventTransform<V, E, V, E> {
        EventTransform { downstream, _ in
            let skipping = OperatorState(true)
            return Observer { event in
                if case .value(let value) = event, skipping.withLock({ $0 }) {
                    if predicate(value) { return }
                    skipping.withLock { $0 = false }
                }
                downstream.send(event)
            }
        }
    }
}

extension Signal {
    /// Drops the first `count` values.
    public func skip(first count: Int) -> Signal<Value, Failure> {
        lift(Operators.skip(first: count))
    }

    /// Drops values while `predicate` holds, then sends every value.
    public func skip(while predicate: @escaping @Sendable (Value) -> Bool) -> Signal<Value, Failure> {
        lift(Operators.skip(while: predicate))
    }
}

extension SignalProducer {
    /// Drops the first `count` values.
    public func skip(first count: Int) -> SignalProducer<Value, Failure> {
        lift(Operators.skip(first: count))
    }

    /// Drops values while `predicate` holds, then sends every value.
    public func skip(while predicate: @escaping @Sendable (Value) -> Bool) -> SignalProducer<Value, Failure> {
        lift(Operators.skip(while: predicate))
    }
}
