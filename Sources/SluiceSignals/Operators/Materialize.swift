extension Operators {
    static func materialize<V, E>() -> EventTransform<V, E, Event<V, E>, Never> {
        EventTransform { downstream, _ in
            Observer { event in
                downstream.send(value: event)
                switch event {
                case .value: break
                case .failed, .completed: downstream.sendCompleted()
                case .interrupted: downstream.sendInterrupted()
                }
            }
        }
    }

    static func dematerialize<V, E>() -> EventTransform<Event<V, E>, Never, V, E> {
        EventTransform { downstream, _ in
            Observer { event in
                switch event {
                case .value(let inner): downstream.send(inner)
                case .completed: downstream.sendCompleted()
                case .interrupted: downstream.sendInterrupted()
                }
            }
        }
    }
}

extension Signal {
    /// Turns every event, terminal ones included, into a value; then completes (or is interrupted).
    public func materialize() -> Signal<Event<Value, Failure>, Never> {
        lift(Operators.materialize())
    }

    /// Turns values that are events back into events: the inverse of `materialize`.
    public func dematerialize<V, E>() -> Signal<V, E> where Value == Event<V, E>, Failure == Never {
        lift(Operators.dematerialize())
    }
}

extension SignalProducer {
    /// Turns every event, terminal ones included, into a value; then completes (or is interrupted).
    public func materialize() -> SignalProducer<Event<Value, Failure>, Never> {
        lift(Operators.materialize())
    }

    /// Turns values that are events back into events: the inverse of `materialize`.
    public func dematerialize<V, E>() -> SignalProducer<V, E> where Value == Event<V, E>, Failure == Never {
        lift(Operators.dematerialize())
    }
}
