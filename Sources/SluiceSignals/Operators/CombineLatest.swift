extension Operators {
    struct CombineLatestState<V: Sendable>: CombinerState {
        var latest: [V?]
        var missing: Int
        var remaining: Int
        var isDone = false

        init(count: Int) {
            latest = Array(repeating: nil, count: count)
            missing = count
            remaining = count
        }

        mutating func release() { latest = [] }
    }

    /// Sends the latest value of every source each time one sends, once all have sent; completes
    /// when all have completed or when one completes without having sent; ends with the first
    /// failure or interruption.
    static func combineLatest<V, E>(_ sources: [Source<V, E>]) -> Run<[V], E> {
        { downstream, lifetime in
            let state = OperatorState(CombineLatestState<V>(count: sources.count))
            let subscriptions = CompositeDisposable()
            let send = funnel(lifetime) { (input: (index: Int, event: Event<V, E>)?) in
                guard let input else {
                    return finish(state, Event<[V], E>.interrupted, downstream, subscriptions)
                }
                switch input.event {
                case .value(let value):
                    let values = state.withLock { s -> [V]? in
                        guard !s.isDone else { return nil }
                        if s.latest[input.index] == nil { s.missing -= 1 }
                        s.latest[input.index] = value
                        return s.missing == 0 ? s.latest.compactMap { $0 } : nil
                    }
                    if let values { downstream.send(value: values) }
                case .completed:
                    let ended = state.withLock { s -> Bool in
                        s.remaining -= 1
                        return s.remaining == 0 || s.latest[input.index] == nil
                    }
                    if ended { finish(state, Event<[V], E>.completed, downstream, subscriptions) }
                case .failed(let error):
                    finish(state, Event<[V], E>.failed(error), downstream, subscriptions)
                case .interrupted:
                    finish(state, Event<[V], E>.interrupted, downstream, subscriptions)
                }
            }
            lifetime += subscriptions
            if sources.isEmpty { return finish(state, Event<[V], E>.completed, downstream, subscriptions) }
            for (index, source) in sources.enumerated() {
                if subscriptions.isDisposed { break }
                subscriptions += source.subscribe(Observer { event in send((index, event)) })
            }
        }
    }

    /// `combineLatest` of two sources of different types, as pairs.
    static func combineLatest<A, B, E>(_ a: Source<A, E>, _ b: Source<B, E>) -> Run<(A, B), E> {
        let run = combineLatest([a.map { Either<A, B>.first($0) }, b.map { Either<A, B>.second($0) }])
        return compactMap(run) { values -> (A, B)? in
            guard values.count == 2, case .first(let a) = values[0], case .second(let b) = values[1] else {
                return nil
            }
            return (a, b)
        }
    }

    /// `combineLatest` of three sources of different types, as triples.
    static func combineLatest<A, B, C, E>(
        _ a: Source<A, E>, _ b: Source<B, E>, _ c: Source<C, E>
    ) -> Run<(A, B, C), E> {
        let run = combineLatest(Source(run: combineLatest(a, b)), c)
        return compactMap(run) { (value: ((A, B), C)) -> (A, B, C)? in (value.0.0, value.0.1, value.1) }
    }
}

extension Signal {
    /// Sends a pair of the latest values of this signal and `other` each time either sends, once
    /// both have sent; completes when both have completed, or when one completes without a value.
    public func combineLatest<U>(with other: Signal<U, Failure>) -> Signal<(Value, U), Failure> {
        Signal.combineLatest(self, other)
    }

    /// Sends a pair of the latest values of `a` and `b` each time either sends, once both have sent.
    public static func combineLatest<B>(
        _ a: Signal<Value, Failure>, _ b: Signal<B, Failure>
    ) -> Signal<(Value, B), Failure> {
        .init(run: Operators.combineLatest(a.source, b.source))
    }

    /// Sends a triple of the latest values of `a`, `b` and `c` each time one sends, once all have sent.
    public static func combineLatest<B, C>(
        _ a: Signal<Value, Failure>, _ b: Signal<B, Failure>, _ c: Signal<C, Failure>
    ) -> Signal<(Value, B, C), Failure> {
        .init(run: Operators.combineLatest(a.source, b.source, c.source))
    }

    /// Sends the latest values of all `signals`, in their order, each time one sends, once all have
    /// sent; an empty sequence completes at once.
    public static func combineLatest<S: Sequence>(
        _ signals: S
    ) -> Signal<[Value], Failure> where S.Element == Signal<Value, Failure> {
        .init(run: Operators.combineLatest(signals.map(\.source)))
    }
}

extension SignalProducer {
    /// Starts this producer and `other`, and sends a pair of their latest values each time either
    /// sends, once both have sent; completes when both have completed, or when one completes
    /// without a value.
    public func combineLatest<U>(with other: SignalProducer<U, Failure>) -> SignalProducer<(Value, U), Failure> {
        SignalProducer.combineLatest(self, other)
    }

    /// Sends a pair of the latest values of `a` and `b` each time either sends, once both have sent.
    public static func combineLatest<B>(
        _ a: SignalProducer<Value, Failure>, _ b: SignalProducer<B, Failure>
    ) -> SignalProducer<(Value, B), Failure> {
        .init(run: Operators.combineLatest(a.source, b.source))
    }

    /// Sends a triple of the latest values of `a`, `b` and `c` each time one sends, once all have sent.
    public static func combineLatest<B, C>(
        _ a: SignalProducer<Value, Failure>, _ b: SignalProducer<B, Failure>, _ c: SignalProducer<C, Failure>
    ) -> SignalProducer<(Value, B, C), Failure> {
        .init(run: Operators.combineLatest(a.source, b.source, c.source))
    }

    /// Sends the latest values of all `producers`, in their order, each time one sends, once all
    /// have sent; an empty sequence completes at once.
    public static func combineLatest<S: Sequence>(
        _ producers: S
    ) -> SignalProducer<[Value], Failure> where S.Element == SignalProducer<Value, Failure> {
        .init(run: Operators.combineLatest(producers.map(\.source)))
    }
}
