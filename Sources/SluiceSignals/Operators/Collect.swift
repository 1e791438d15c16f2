extension Operators {
    static func collect<V, E>(count: Int?) -> EventTransform<V, E, [V], E> {
        EventTransform { downstream, _ in
            let buffer = OperatorState([V]())
            return Observer { event in
                switch event {
                case .value(let value):
                    let full = buffer.withLock { values -> [V]? in
                        values.append(value)
                        guard let count, values.count >= count else { return nil }
                        defer { values = [] }
                        return values
                    }
                    if let full { downstream.send(value: full) }
                case .completed:
                    let rest = buffer.withLock { values in
                        defer { values = [] }
                        return values
                    }
                    // Without a count, an empty stream still yields one (empty) array.
                    if count == nil || !rest.isEmpty { downstream.send(value: rest) }
                    downstream.sendCompleted()
                default:
                    downstream.sendTerminal(event)
                }
            }
        }
    }
}

extension Signal {
    /// Sends all values as one array when the stream completes.
    public func collect() -> Signal<[Value], Failure> {
        lift(Operators.collect(count: nil))
    }

    /// Sends the values in arrays of `count` (the last one may be shorter).
    public func collect(count: Int) -> Signal<[Value], Failure> {
        precondition(count > 0, "collect(count:) needs a positive count")
        return lift(Operators.collect(count: count))
    }
}

extension SignalProducer {
    /// Sends all values as one array when the stream completes.
    public func collect() -> SignalProducer<[Value], Failure> {
        lift(Operators.collect(count: nil))
    }

    /// Sends the values in arrays of `count` (the last one may be shorter).
    public func collect(count: Int) -> SignalProducer<[Value], Failure> {
        precondition(count > 0, "collect(count:) needs a positive count")
        return lift(Operators.collect(count: count))
    }
}
