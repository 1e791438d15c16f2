extension Operators {
    @inlinable
    static func promoteError<V, F>() -> EventTransform<V, Never, V, F> {
        EventTransform { downstream, _ in
            Observer { event in
                switch event {
                case .value(let value): downstream.send(value: value)
                case .completed: downstream.sendCompleted()
                case .interrupted: downstream.sendInterrupted()
                }
            }
        }
    }
}

extension Signal where Failure == Never {
    /// The same events, typed as a signal that can fail with `F` (it never does), so that it
    /// composes with streams that can.
    @inlinable
    public func promoteError<F>(_: F.Type = F.self) -> Signal<Value, F> {
        lift(Operators.promoteError())
    }
}

extension SignalProducer where Failure == Never {
    /// The same events, typed as a producer that can fail with `F` (it never does), so that it
    /// composes with producers that can.
    @inlinable
    public func promoteError<F>(_: F.Type = F.self) -> SignalProducer<Value, F> {
        lift(Operators.promoteError())
    }
}
