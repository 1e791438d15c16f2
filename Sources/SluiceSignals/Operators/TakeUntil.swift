extension Operators {
    enum TakeUntilInput<V: Sendable, E: Error>: Sendable {
        case source(Event<V, E>)
        case trigger(Event<(), Never>)
    }

    struct TakeUntilState: CombinerState {
        var isDone = false
        mutating func release() {}
    }

    /// Forwards the events of `source` until `trigger` sends a value or completes, then completes
    /// and disposes both. An interrupted trigger is ignored: it will never fire.
    static func take<V, E>(_ source: Source<V, E>, until trigger: Source<(), Never>) -> Run<V, E> {
        { downstream, lifetime in
            let state = OperatorState(TakeUntilState())
            let subscriptions = CompositeDisposable()
            let send = funnel(lifetime) { (input: TakeUntilInput<V, E>?) in
                switch input {
                case nil:
                    finish(state, Event<V, E>.interrupted, downstream, subscriptions)
                case .trigger(.value), .trigger(.completed):
                    finish(state, Event<V, E>.completed, downstream, subscriptions)
                case .trigger(.interrupted):
                    break
                case .source(.value(let value)):
                    if !state.withLock({ $0.isDone }) { downstream.send(value: value) }
                case .source(let event):
                    finish(state, event, downstream, subscriptions)
                }
            }
            lifetime += subscriptions
            // The trigger first, so that one that fires at once spares starting the source.
            subscriptions += trigger.subscribe(Observer { event in send(.trigger(event)) })
            if subscriptions.isDisposed { return }
            subscriptions += source.subscribe(Observer { event in send(.source(event)) })
        }
    }
}

extension Signal {
    /// Forwards this signal's events until `trigger` sends a value or completes, then completes.
    public func take(until trigger: Signal<(), Never>) -> Signal<Value, Failure> {
        .init(run: Operators.take(source, until: trigger.source))
    }
}

extension SignalProducer {
    /// Forwards this producer's events until `trigger` (started first) sends a value or
    /// completes, then completes and disposes the work.
    public func take(until trigger: SignalProducer<(), Never>) -> SignalProducer<Value, Failure> {
        .init(run: Operators.take(source, until: trigger.source))
    }

    /// Forwards this producer's events until `trigger` sends a value or completes, then completes
    /// and disposes the work.
    public func take(until trigger: Signal<(), Never>) -> SignalProducer<Value, Failure> {
        .init(run: Operators.take(source, until: trigger.source))
    }
}

extension Signal {
    /// Forwards this signal's events until `lifetime` ends, then completes.
    public func take(during lifetime: Lifetime) -> Signal<Value, Failure> {
        take(until: lifetime.ended)
    }
}

extension SignalProducer {
    /// Forwards this producer's events until `lifetime` ends, then completes and disposes the
    /// work: a request bound to its owner is cancelled when the owner goes away.
    ///
    ///     final class ProfileScreen {
    ///         private let (lifetime, token) = Lifetime.make()
    ///         func load() {
    ///             client.get("me").decode(User.self).take(during: lifetime).startWithValues { … }
    ///         }
    ///     }
    public func take(during lifetime: Lifetime) -> SignalProducer<Value, Failure> {
        take(until: lifetime.ended)
    }
}
