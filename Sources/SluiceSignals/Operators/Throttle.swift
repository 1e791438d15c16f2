import FoundationEssentials

extension Operators {
    /// The state of one `throttle` subscription.
    struct ThrottleState<V: Sendable>: Sendable {
        /// When the last value was sent.
        var lastSent: Date?
        /// The latest value held back for the end of the interval; set only while the timer is pending.
        var pending: V?
    }

    /// Sends at most one value per `interval`, the latest one; see `Signal.throttle`.
    static func throttle<V, E>(_ interval: Duration, on scheduler: any DateScheduler) -> EventTransform<V, E, V, E> {
        EventTransform { downstream, lifetime in
            let seconds = interval.timeInterval
            let state = OperatorState(ThrottleState<V>())
            let machine = TimedMachine(downstream, lifetime, on: scheduler) { input, machine in
                switch input {
                case .upstream(.value(let value)):
                    let now = machine.now
                    // Either send now, or hold the value back: `wake` is when the interval ends if
                    // no timer is set yet.
                    let (sendNow, wake) = state.withLock { s -> (Bool, Date?) in
                        if s.pending != nil {
                            s.pending = value  // the timer is already set for the end of the interval
                            return (false, nil)
                        }
                        // Open when nothing was sent yet, when the interval has passed, or when the
                        // clock went back before the last send.
                        guard let last = s.lastSent, last <= now, now < last.addingTimeInterval(seconds) else {
                            s.lastSent = now
                            return (true, nil)
                        }
                        s.pending = value
                        return (false, last.addingTimeInterval(seconds))
                    }
                    if sendNow { machine.send(.value(value)) }
                    if let wake { machine.schedule(at: wake) }
                case .upstream(.completed):
                    if let value = state.withLock({ $0.pending.take() }) { machine.send(.value(value)) }
                    machine.send(.completed)
                case .upstream(let terminal):
                    state.withLock { $0.pending = nil }
                    machine.send(terminal)
                case .timer(let date):
                    let value = state.withLock { s -> V? in
                        s.lastSent = date
                        return s.pending.take()
                    }
                    if let value { machine.send(.value(value)) }
                }
            }
            return machine.input
        }
    }
}

extension Signal {
    /// Sends at most one value per `interval` on `scheduler`: a value is sent at once if `interval`
    /// has passed since the last one sent, otherwise the latest value is sent when it has.
    ///
    /// On completion a value still held back is sent at once, then `completed`; `failed` and
    /// `interrupted` are forwarded at once and drop it.
    public func throttle(_ interval: Duration, on scheduler: any DateScheduler) -> Signal<Value, Failure> {
        lift(Operators.throttle(interval, on: scheduler))
    }
}

extension SignalProducer {
    /// Sends at most one value per `interval` on `scheduler`: a value is sent at once if `interval`
    /// has passed since the last one sent, otherwise the latest value is sent when it has.
    ///
    /// On completion a value still held back is sent at once, then `completed`; `failed` and
    /// `interrupted` are forwarded at once and drop it.
    public func throttle(_ interval: Duration, on scheduler: any DateScheduler) -> SignalProducer<Value, Failure> {
        lift(Operators.throttle(interval, on: scheduler))
    }
}
