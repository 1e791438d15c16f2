extension Operators {
    struct ZipState<V: Sendable>: CombinerState {
        /// Values received from each source and not yet paired, oldest first.
        var buffers: [ArraySlice<V>]
        var completed: [Bool]
        var isDone = false

        init(count: Int) {
            buffers = Array(repeating: [], count: count)
            completed = Array(repeating: false, count: count)
        }

        /// Whether some completed source has no buffered value left to pair.
        var isExhausted: Bool {
            buffers.indices.contains { completed[$0] && buffers[$0].isEmpty }
        }

        mutating func release() { buffers = [] }
    }

    /// Pairs the values of the sources in order: the n-th value sent is made of the n-th value of
    /// each source. Completes as soon as a completed source has no buffered value left; ends with
    /// the first failure or interruption.
    static func zip<V, E>(_ sources: [Source<V, E>]) -> Run<[V], E> {
        { downstream, lifetime in
            let state = OperatorState(ZipState<V>(count: sources.count))
            let subscriptions = CompositeDisposable()
            let send = funnel(lifetime) { (input: (index: Int, event: Event<V, E>)?) in
                guard let input else {
                    return finish(state, Event<[V], E>.interrupted, downstream, subscriptions)
                }
                switch input.event {
                case .value(let value):
                    let (values, exhausted) = state.withLock { s -> ([V]?, Bool) in
                        guard !s.isDone else { return (nil, false) }
                        s.buffers[input.index].append(value)
                        guard s.buffers.allSatisfy({ !$0.isEmpty }) else { return (nil, false) }
                        let values = s.buffers.indices.map { s.buffers[$0].removeFirst() }
                        return (values, s.isExhausted)
                    }
                    if let values { downstream.send(value: values) }
                    if exhausted { finish(state, Event<[V], E>.completed, downstream, subscriptions) }
                case .completed:
                    let exhausted = state.withLock { s -> Bool in
                        s.completed[input.index] = true
                        return s.isExhausted
                    }
                    if exhausted { finish(state, Event<[V], E>.completed, downstream, subscriptions) }
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

    /// `zip` of two sources of different types, as pairs.
    static func zip<A, B, E>(_ a: Source<A, E>, _ b: Source<B, E>) -> Run<(A, B), E> {
        let run = zip([a.map { Either<A, B>.first($0) }, b.map { Either<A, B>.second($0) }])
        return compactMap(run) { values -> (A, B)? in
            guard values.count == 2, case .first(let a) = values[0], case .second(let b) = values[1] else {
                return nil
            }
            return (a, b)
        }
    }

    /// `zip` of three sources of different types, as triples.
    static func zip<A, B, C, E>(_ a: Source<A, E>, _ b: Source<B, E>, _ c: Source<C, E>) -> Run<(A, B, C), E> {
        let run = zip(Source(run: zip(a, b)), c)
        return compactMap(run) { (value: ((A, B), C)) -> (A, B, C)? in (value.0.0, value.0.1, value.1) }
    }
}

extension Signal {
    /// Pairs the values of this signal and `other` in order; completes once a completed signal has
    /// no value left to pair.
    public func zip<U>(with other: Signal<U, Failure>) -> Signal<(Value, U), Failure> {
        Signal.zip(self, other)
    }

    /// Pairs the values of `a` and `b` in order; completes once a completed signal has no value
    /// left to pair.
    public static func zip<B>(_ a: Signal<Value, Failure>, _ b: Signal<B, Failure>) -> Signal<(Value, B), Failure> {
        .init(run: Operators.zip(a.source, b.source))
    }

    /// Combines the values of `a`, `b` and `c` into triples, in order; completes once a completed
    /// signal has no value left to combine.
    public static func zip<B, C>(
        _ a: Signal<Value, Failure>, _ b: Signal<B, Failure>, _ c: Signal<C, Failure>
    ) -> Signal<(Value, B, C), Failure> {
        .init(run: Operators.zip(a.source, b.source, c.source))
    }

    /// Combines the values of all `signals` into arrays, in order; an empty sequence completes at once.
    public static func zip<S: Sequence>(_ signals: S) -> Signal<[Value], Failure>
    where S.Element == Signal<Value, Failure> {
        .init(run: Operators.zip(signals.map(\.source)))
    }
}

extension SignalProducer {
    /// Starts this producer and `other` and pairs their values in order; completes once a
    /// completed producer has no value left to pair.
    public func zip<U>(with other: SignalProducer<U, Failure>) -> SignalProducer<(Value, U), Failure> {
        SignalProducer.zip(self, other)
    }

    /// Pairs the values of `a` and `b` in order; completes once a completed producer has no value
    /// left to pair.
    public static func zip<B>(
        _ a: SignalProducer<Value, Failure>, _ b: SignalProducer<B, Failure>
    ) -> SignalProducer<(Value, B), Failure> {
        .init(run: Operators.zip(a.source, b.source))
    }

    /// Combines the values of `a`, `b` and `c` into triples, in order; completes once a completed
    /// producer has no value left to combine.
    public static func zip<B, C>(
        _ a: SignalProducer<Value, Failure>, _ b: SignalProducer<B, Failure>, _ c: SignalProducer<C, Failure>
    ) -> SignalProducer<(Value, B, C), Failure> {
        .init(run: Operators.zip(a.source, b.source, c.source))
    }

    /// Combines the values of all `producers` into arrays, in order; an empty sequence completes at once.
    public static func zip<S: Sequence>(
        _ producers: S
    ) -> SignalProducer<[Value], Failure> where S.Element == SignalProducer<Value, Failure> {
        .init(run: Operators.zip(producers.map(\.source)))
    }
}
