extension Operators {
    /// Fails with `error` unless the stream terminates within `interval` of its subscription.
    static func timeout<V, E>(
        after interval: Duration,
        raising error: E,
        on scheduler: any DateScheduler
    ) -> EventTransform<V, E, V, E> {
        EventTransform { downstream, lifetime in
            let machine = TimedMachine(downstream, lifetime, on: scheduler) { input, machine in
                switch input {
                case .upstream(let event): machine.send(event)  // a terminal event cancels the timer
                case .timer: machine.send(.failed(error))
                }
            }
            // Set before the source can send anything: the clock starts with the subscription.
            machine.schedule(after: interval)
            return machine.input
        }
    }
}

extension Signal {
    /// Forwards every event, but fails with `error` if the signal has not terminated within
    /// `interval` of being observed (measured on `scheduler`).
    public func timeout(
        after interval: Duration,
        raising error: Failure,
        on scheduler: any DateScheduler
    ) -> Signal<Value, Failure> {
        lift(Operators.timeout(after: interval, raising: error, on: scheduler))
    }
}

extension SignalProducer {
    /// Forwards every event, but fails with `error` (interrupting the work) if the producer has not
    /// terminated within `interval` of being started (measured on `scheduler`).
    public func timeout(
        after interval: Duration,
        raising error: Failure,
        on scheduler: any DateScheduler
    ) -> SignalProducer<Value, Failure> {
        lift(Operators.timeout(after: interval, raising: error, on: scheduler))
    }
}
