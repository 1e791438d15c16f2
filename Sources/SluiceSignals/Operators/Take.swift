extension Operators {
    @inlinable
    static func take<V, E>(first count: Int) -> EventTransform<V, E, V, E> {
        EventTransform { downstream, _ in
            let remaining = OperatorState(count)
            if count <= 0 { downstream.sendCompleted() }
            return Observer { event in
                // Once done, ignore what the source still sends until it is detached.
                let left = remaining.withLock { left -> Int in
                    defer { if case .value = event, left > 0 { left -= 1 } }
                    return left
                }
                guard left > 0 else { return }
                downstream.send(event)
                if case .value = event, left == 1 { downstream.sendCompleted() }
            }
        }
    }

    static func take<V, E>(while predicate: @escaping @Sendable (V) -> Bool) -> EventTransform<V, E, V, E> {
        EventTransform { downstream, _ in
            let done = OperatorState(false)
            return Observer { event in
                if done.withLock({ $0 }) { return }
                if case .value(let value) = event, !predicate(value) {
                    done.withLock { $0 = true }
                    downstream.sendCompleted()
                    return
                }
                downstream.send(event)
            }
        }
    }
}

extension Signal {
    /// Sends the first `count` values, then completes.
    @inlinable
    public func take(first count: Int) -> Signal<Value, Failure> {
        lift(Operators.take(first: count))
    }

    /// Sends values while `predicate` holds; completes at the first value for which it does not.
    public func take(while predicate: @escaping @Sendable (Value) -> Bool) -> Signal<Value, Failure> {
        lift(Operators.take(while: predicate))
    }
}

extension SignalProducer {
    /// Sends the first `count` values, then completes and disposes the work.
    @inlinable
    public func take(first count: Int) -> SignalProducer<Value, Failure> {
        lift(Operators.take(first: count))
    }

    /// Sends values while `predicate` holds; completes at the first value for which it does not.
    public func take(while predicate: @escaping @Sendable (Value) -> Bool) -> SignalProducer<Value, Failure> {
        lift(Operators.take(while: predicate))
    }
}
