extension Operators {
    struct MergeState: CombinerState {
        var remaining: Int
        var isDone = false
        mutating func release() {}
    }

    /// Forwards the values of every source as they come; completes when all have completed, and
    /// ends with the first failure or interruption, disposing the other sources.
    static func merge<V, E>(_ sources: [Source<V, E>]) -> Run<V, E> {
        { downstream, lifetime in
            let state = OperatorState(MergeState(remaining: sources.count))
            let subscriptions = CompositeDisposable()
            let send = funnel(lifetime) { (input: (index: Int, event: Event<V, E>)?) in
                guard let input else {
                    return finish(state, Event<V, E>.interrupted, downstream, subscriptions)
                }
                switch input.event {
                case .value(let value):
                    if !state.withLock({ $0.isDone }) { downstream.send(value: value) }
                case .completed:
                    let all = state.withLock { s -> Bool in
                        s.remaining -= 1
                        return s.remaining == 0
                    }
                    if all { finish(state, input.event, downstream, subscriptions) }
                case .failed, .interrupted:
                    finish(state, input.event, downstream, subscriptions)
                }
            }
            lifetime += subscriptions
            if sources.isEmpty { return finish(state, Event<V, E>.completed, downstream, subscriptions) }
            for (index, source) in sources.enumerated() {
                // A source that ended the stream while being subscribed spares the others.
                if subscriptions.isDisposed { break }
                subscriptions += source.subscribe(Observer { event in send((index, event)) })
            }
        }
    }
}

extension Signal {
    /// Sends the values of every signal as they come; completes when all have completed, and ends
    /// with the first failure or interruption.
    public static func merge(_ signals: Signal<Value, Failure>...) -> Signal<Value, Failure> {
        merge(signals)
    }

    /// Sends the values of every signal as they come; completes when all have completed, and ends
    /// with the first failure or interruption.
    public static func merge<S: Sequence>(_ signals: S) -> Signal<Value, Failure>
    where S.Element == Signal<Value, Failure> {
        Signal(run: Operators.merge(signals.map(\.source)))
    }

    /// Sends the values of this signal and of `other` as they come.
    public func merge(with other: Signal<Value, Failure>) -> Signal<Value, Failure> {
        Signal.merge([self, other])
    }
}

extension SignalProducer {
    /// Starts every producer and sends their values as they come; completes when all have
    /// completed, and ends with the first failure or interruption, disposing the others.
    public static func merge(_ producers: SignalProducer<Value, Failure>...) -> SignalProducer<Value, Failure> {
        merge(producers)
    }

    /// Starts every producer and sends their values as they come; completes when all have
    /// completed, and ends with the first failure or interruption, disposing the others.
    public static func merge<S: Sequence>(
        _ producers: S
    ) -> SignalProducer<Value, Failure> where S.Element == SignalProducer<Value, Failure> {
        SignalProducer(run: Operators.merge(producers.map(\.source)))
    }

    /// Starts this producer and `other` together and sends their values as they come.
    public func merge(with other: SignalProducer<Value, Failure>) -> SignalProducer<Value, Failure> {
        SignalProducer.merge([self, other])
    }
}
