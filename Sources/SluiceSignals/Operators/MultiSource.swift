/// Shared machinery of the operators that combine several sources (merge, combineLatest, zip,
/// flatMap, take(until:)).
///
/// Both a `Signal` and a `SignalProducer` are seen as a `Source`: a function that subscribes an
/// observer and returns what ends the subscription (`observe` for a signal, `start` for a
/// producer). A combining operator is written once as a `Run` over sources: the body of one
/// subscription, given the downstream observer and the subscription's lifetime. A `Run` becomes a
/// `Signal` (a view: one run per observation) or a `SignalProducer` (one run per start).
extension Operators {
    /// Subscribes an observer to a signal or a producer; returns what ends that subscription.
    struct Source<Value: Sendable, Failure: Error>: Sendable {
        let subscribe: @Sendable (Observer<Value, Failure>) -> (any Disposable)?

        init(_ subscribe: @escaping @Sendable (Observer<Value, Failure>) -> (any Disposable)?) {
            self.subscribe = subscribe
        }

        /// A source that runs `run` on each subscription and ends it after its terminal event.
        init(run: @escaping Run<Value, Failure>) {
            self.subscribe = { observer in
                let disposables = CompositeDisposable()
                let guarded = Observer<Value, Failure> { event in
                    observer.send(event)
                    if event.isTerminating { disposables.dispose() }
                }
                run(guarded, Lifetime(disposables))
                return disposables
            }
        }

        /// The same source with each value transformed.
        func map<U>(_ transform: @escaping @Sendable (Value) -> U) -> Source<U, Failure> {
            let subscribe = self.subscribe
            return Source<U, Failure> { observer in
                subscribe(Observer { event in observer.send(event.map(transform)) })
            }
        }

        /// The same source typed with another failure; only valid for a source that cannot fail.
        func promoteError<F>(_: F.Type) -> Source<Value, F> where Failure == Never {
            let subscribe = self.subscribe
            return Source<Value, F> { observer in
                subscribe(
                    Observer { event in
                        switch event {
                        case .value(let value): observer.send(value: value)
                        case .completed: observer.sendCompleted()
                        case .interrupted: observer.sendInterrupted()
                        }
                    })
            }
        }
    }

    /// The body of one subscription of a combined stream: sends serially into the observer and
    /// attaches everything it starts to the lifetime.
    typealias Run<Value: Sendable, Failure: Error> = @Sendable (consuming Observer<Value, Failure>, Lifetime) -> Void

    /// Transforms the values of a run, dropping those for which `transform` returns nil.
    static func compactMap<V, U, E>(
        _ run: @escaping Run<V, E>, _ transform: @escaping @Sendable (V) -> U?
    ) -> Run<U, E> {
        { downstream, lifetime in
            run(Operators.compactMap(transform).make(downstream, lifetime), lifetime)
        }
    }

    /// One of two values, used to feed sources of different types to a combiner written for
    /// sources of one type.
    enum Either<A: Sendable, B: Sendable>: Sendable {
        case first(A)
        case second(B)
    }

    /// The serial heart of a combining operator: every source sends its events into the returned
    /// function, from any thread; `handler` receives them one at a time, in the order they were
    /// accepted, never concurrently and never re-entrantly, so it may keep plain state, call user
    /// code and send downstream directly. When `lifetime` ends, events not yet handled are dropped
    /// and `handler` receives nil, once, as its last call.
    static func funnel<Input: Sendable>(
        _ lifetime: Lifetime,
        _ handler: @escaping @Sendable (Input?) -> Void
    ) -> @Sendable (Input) -> Void {
        let gate = serialized(
            Observer<Input, Never> { event in
                switch event {
                case .value(let input): handler(input)
                case .interrupted: handler(nil)
                case .completed: break  // never sent: sources' terminal events travel as values
                }
            },
            lifetime)
        return { input in gate.send(value: input) }
    }

    /// Sends the terminal event of a combined stream once: marks `state` done, sends `event`, then
    /// disposes `subscriptions` (the sources); a later call does nothing.
    static func finish<S: CombinerState, V, E>(
        _ state: OperatorState<S>,
        _ event: Event<V, E>,
        _ downstream: Observer<V, E>,
        _ subscriptions: CompositeDisposable
    ) {
        let first = state.withLock { s -> Bool in
            guard !s.isDone else { return false }
            s.isDone = true
            s.release()
            return true
        }
        guard first else { return }
        downstream.send(event)
        subscriptions.dispose()
    }
}

/// The per-subscription state of a combining operator.
protocol CombinerState: Sendable {
    /// Whether the combined stream has sent its terminal event.
    var isDone: Bool { get set }
    /// Drops buffered values and pending work once the stream is done.
    mutating func release()
}

extension Signal {
    /// This signal as a source: each subscription is an observation.
    var source: Operators.Source<Value, Failure> {
        Operators.Source { [self] observer in self.observe(observer) }
    }

    /// A signal whose every observation runs `run` with its own state.
    convenience init(run: @escaping Operators.Run<Value, Failure>) {
        self.init(attach: { downstream in
            let disposables = CompositeDisposable()
            run(downstream, Lifetime(disposables))
            return disposables
        })
    }
}

extension SignalProducer {
    /// This producer as a source: each subscription is a start.
    var source: Operators.Source<Value, Failure> {
        Operators.Source { [self] observer in self.start(observer) }
    }

    /// A producer whose every start runs `run`, which sends serially.
    init(run: @escaping Operators.Run<Value, Failure>) {
        self.init(serialized: run)
    }
}
