extension Operators {
    /// Forwards a value once `interval` has passed without a newer one; see `Signal.debounce`.
    static func debounce<V, E>(_ interval: Duration, on scheduler: any DateScheduler) -> EventTransform<V, E, V, E> {
        EventTransform { downstream, lifetime in
            // The value waiting for a quiet `interval`; set only while the timer is pending.
            let pending = OperatorState<V?>(nil)
            let machine = TimedMachine(downstream, lifetime, on: scheduler) { input, machine in
                switch input {
                case .upstream(.value(let value)):
                    pending.withLock { $0 = value }
                    machine.schedule(after: interval)  // replaces the timer of the older value
                case .upstream(.completed):
                    if let value = pending.withLock({ $0.take() }) { machine.send(.value(value)) }
                    machine.send(.completed)
                case .upstream(let terminal):
                    pending.withLock { $0 = nil }
                    machine.send(terminal)
                case .timer:
                    if let value = pending.withLock({ $0.take() }) { machine.send(.value(value)) }
                }
            }
            return machine.input
        }
    }
}

extension Signal {
    /// Forwards a value only once `interval` has passed on `scheduler` without a newer value.
    ///
    /// On completion a value still waiting is sent at once, then `completed`; `failed` and
    /// `interrupted` are forwarded at once and drop the waiting value.
    public func debounce(_ interval: Duration, on scheduler: any DateScheduler) -> Signal<Value, Failure> {
        lift(Operators.debounce(interval, on: scheduler))
    }
}

extension SignalProducer {
    /// Forwards a value only once `interval` has passed on `scheduler` without a newer value.
    ///
    /// On completion a value still waiting is sent at once, then `completed`; `failed` and
    /// `interrupted` are forwarded at once and drop the waiting value.
    public func debounce(_ interval: Duration, on scheduler: any DateScheduler) -> SignalProducer<Value, Failure> {
        lift(Operators.debounce(interval, on: scheduler))
    }
}
