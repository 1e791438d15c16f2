extension Operators {
    @inlinable
    static func on<V, E>(
        event: (@Sendable (Event<V, E>) -> Void)?,
        value: (@Sendable (V) -> Void)?,
        failed: (@Sendable (E) -> Void)?,
        completed: (@Sendable () -> Void)?,
        interrupted: (@Sendable () -> Void)?,
        terminated: (@Sendable () -> Void)?,
        disposed: (@Sendable () -> Void)?
    ) -> EventTransform<V, E, V, E> {
        EventTransform { downstream, lifetime in
            if let disposed { lifetime.observeEnded(disposed) }
            return Observer { e in
                event?(e)
                switch e {
                case .value(let v): value?(v)
                case .failed(let error): failed?(error)
                case .completed: completed?()
                case .interrupted: interrupted?()
                }
                if e.isTerminating { terminated?() }
                downstream.send(e)
            }
        }
    }
}

extension Signal {
    /// Runs side effects for events as they pass, before downstream observers see them.
    /// `disposed` runs when the observation ends, whether by a terminal event or by disposal.
    @inlinable
    public func on(
        event: (@Sendable (Event<Value, Failure>) -> Void)? = nil,
        value: (@Sendable (Value) -> Void)? = nil,
        failed: (@Sendable (Failure) -> Void)? = nil,
        completed: (@Sendable () -> Void)? = nil,
        interrupted: (@Sendable () -> Void)? = nil,
        terminated: (@Sendable () -> Void)? = nil,
        disposed: (@Sendable () -> Void)? = nil
    ) -> Signal<Value, Failure> {
        lift(
            Operators.on(
                event: event, value: value, failed: failed, completed: completed,
                interrupted: interrupted, terminated: terminated, disposed: disposed))
    }
}

extension SignalProducer {
    /// Runs side effects for the subscription's life and its events, before the observer sees them:
    /// `starting` before the work starts, `started` after its start handler returned, and
    /// `disposed` when the subscription ends, whether by a terminal event or by disposal.
    @inlinable
    public func on(
        starting: (@Sendable () -> Void)? = nil,
        started: (@Sendable () -> Void)? = nil,
        event: (@Sendable (Event<Value, Failure>) -> Void)? = nil,
        value: (@Sendable (Value) -> Void)? = nil,
        failed: (@Sendable (Failure) -> Void)? = nil,
        completed: (@Sendable () -> Void)? = nil,
        interrupted: (@Sendable () -> Void)? = nil,
        terminated: (@Sendable () -> Void)? = nil,
        disposed: (@Sendable () -> Void)? = nil
    ) -> SignalProducer<Value, Failure> {
        let lifted = lift(
            Operators.on(
                event: event, value: value, failed: failed, completed: completed,
                interrupted: interrupted, terminated: terminated, disposed: disposed))
        guard starting != nil || started != nil else { return lifted }
        return SignalProducer(serialized: { observer, lifetime in
            starting?()
            lifted.startHandler(observer, lifetime)
            started?()
        })
    }
}
