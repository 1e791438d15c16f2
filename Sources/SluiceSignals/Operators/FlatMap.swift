/// How `flatMap` and `flatten` run the inner producers made from the values of a stream.
public enum FlattenStrategy: Sendable, Hashable {
    /// Starts every inner producer at once and sends their values as they come.
    case merge
    /// Runs the inner producers one after the other, in order; the same as `concurrent(limit: 1)`.
    case concat
    /// Runs only the newest inner producer, disposing the previous one when a new one arrives.
    case latest
    /// Runs at most `limit` inner producers at once; the others wait, in order, for a free slot.
    case concurrent(limit: Int)

    /// How many inner producers may run at once, or nil for `latest`.
    var limit: Int? {
        switch self {
        case .merge: return Int.max
        case .concat: return 1
        case .latest: return nil
        case .concurrent(let limit):
            precondition(limit > 0, "FlattenStrategy.concurrent needs a limit of at least 1")
            return limit
        }
    }
}

extension Operators {
    enum FlattenInput<V: Sendable, U: Sendable, E: Error>: Sendable {
        case outer(Event<V, E>)
        case inner(id: UInt64, Event<U, E>)
    }

    struct FlattenState<U: Sendable, E: Error>: CombinerState {
        /// A running inner subscription, and the handle that removes it from the subscriptions.
        struct Inner: Sendable {
            let disposable: any Disposable
            let removal: (any Disposable)?
        }

        var running: [UInt64: Inner] = [:]
        var waiting: ArraySlice<SignalProducer<U, E>> = []
        var nextID: UInt64 = 0
        var outerCompleted = false
        var isDone = false

        /// Whether the outer stream and every inner one have completed.
        var isFinished: Bool { outerCompleted && running.isEmpty && waiting.isEmpty }

        mutating func release() {
            running = [:]
            waiting = []
        }
    }

    /// Starts an inner producer for each value of the outer stream and sends the inner values, as
    /// `strategy` says. Completes when the outer stream and the inner producers it started have
    /// completed; the first failure or interruption, outer or inner, ends the stream and disposes
    /// everything.
    static func flatMap<V, U, E>(
        _ outer: Source<V, E>,
        _ strategy: FlattenStrategy,
        _ transform: @escaping @Sendable (V) -> SignalProducer<U, E>
    ) -> Run<U, E> {
        let limit = strategy.limit
        return { downstream, lifetime in
            let state = OperatorState(FlattenState<U, E>())
            let subscriptions = CompositeDisposable()

            // Called by the serial handler only, so inner events queue up behind the current one.
            @Sendable func start(
                _ producer: SignalProducer<U, E>, send: @escaping @Sendable (FlattenInput<V, U, E>) -> Void
            ) {
                let id = state.withLock { s -> UInt64 in
                    defer { s.nextID += 1 }
                    return s.nextID
                }
                let disposable = producer.start(Observer { event in send(.inner(id: id, event)) })
                let removal = subscriptions.add(disposable)
                let stale = state.withLock { s -> Bool in
                    guard !s.isDone else { return true }
                    s.running[id] = FlattenState.Inner(disposable: disposable, removal: removal)
                    return false
                }
                if stale { disposable.dispose() }
            }

            // The send function is held by a class: a closure stored through a generic type
            // parameter is wrapped in conversion thunks on every round trip, and those piled up
            // with every inner producer (flatMap became quadratic).
            let box = OperatorState<SendHolder<FlattenInput<V, U, E>>?>(nil)
            let send = funnel(lifetime) { (input: FlattenInput<V, U, E>?) in
                guard let input else {
                    return finish(state, Event<U, E>.interrupted, downstream, subscriptions)
                }
                guard let send = box.withLock({ $0 })?.send, !state.withLock({ $0.isDone }) else { return }
                switch input {
                case .outer(.value(let value)):
                    let producer = transform(value)
                    if let limit {
                        let startNow = state.withLock { s -> Bool in
                            guard s.running.count >= limit else { return true }
                            s.waiting.append(producer)
                            return false
                        }
                        if startNow { start(producer, send: send) }
                    } else {
                        // Latest: the previous inner producer's events that are still queued are
                        // dropped, since its id is no longer running.
                        let previous = state.withLock { s -> [FlattenState<U, E>.Inner] in
                            defer { s.running = [:] }
                            return Array(s.running.values)
                        }
                        for inner in previous {
                            inner.disposable.dispose()
                            inner.removal?.dispose()
                        }
                        start(producer, send: send)
                    }
                case .outer(.completed):
                    let finished = state.withLock { s -> Bool in
                        s.outerCompleted = true
                        return s.isFinished
                    }
                    if finished { finish(state, Event<U, E>.completed, downstream, subscriptions) }
                case .outer(.failed(let error)):
                    finish(state, Event<U, E>.failed(error), downstream, subscriptions)
                case .outer(.interrupted):
                    finish(state, Event<U, E>.interrupted, downstream, subscriptions)
                case .inner(let id, .value(let value)):
                    if state.withLock({ $0.running[id] != nil }) { downstream.send(value: value) }
                case .inner(let id, .completed):
                    let (inner, next, finished) = state.withLock {
                        s -> (FlattenState<U, E>.Inner?, SignalProducer<U, E>?, Bool) in
                        guard let inner = s.running.removeValue(forKey: id) else { return (nil, nil, false) }
                        if let next = s.waiting.popFirst() { return (inner, next, false) }
                        return (inner, nil, s.isFinished)
                    }
                    // The finished subscription has released its resources; forget it.
                    inner?.removal?.dispose()
                    if let next { start(next, send: send) }
                    if finished { finish(state, Event<U, E>.completed, downstream, subscriptions) }
                case .inner(let id, let event):
                    // Failed or interrupted: ends everything, unless this inner was already replaced.
                    if state.withLock({ $0.running[id] != nil }) {
                        finish(state, event, downstream, subscriptions)
                    }
                }
            }
            box.withLock { $0 = SendHolder(send) }
            lifetime += subscriptions
            if subscriptions.isDisposed { return }
            // The outer stream, observed last so that the handler is ready for its first value.
            subscriptions += outer.subscribe(Observer { event in send(.outer(event)) })
            lifetime.observeEnded { box.withLock { $0 = nil } }
        }
    }
}

extension Signal {
    /// Maps each value to a producer and sends the values of the producers, run as `strategy`
    /// says; completes once this signal and the producers have completed.
    public func flatMap<U>(
        _ strategy: FlattenStrategy,
        _ transform: @escaping @Sendable (Value) -> SignalProducer<U, Failure>
    ) -> Signal<U, Failure> {
        .init(run: Operators.flatMap(source, strategy, transform))
    }

    /// Maps each value to a producer that may fail, for a signal that cannot fail, and sends the
    /// values of the producers, run as `strategy` says.
    public func flatMap<U, F>(
        _ strategy: FlattenStrategy,
        _ transform: @escaping @Sendable (Value) -> SignalProducer<U, F>
    ) -> Signal<U, F> where Failure == Never {
        .init(run: Operators.flatMap(source.promoteError(F.self), strategy, transform))
    }

    /// Maps each value to a producer, when neither this signal nor the producers can fail, and
    /// sends the values of the producers, run as `strategy` says.
    public func flatMap<U>(
        _ strategy: FlattenStrategy,
        _ transform: @escaping @Sendable (Value) -> SignalProducer<U, Never>
    ) -> Signal<U, Never> where Failure == Never {
        .init(run: Operators.flatMap(source, strategy, transform))
    }

    /// Sends the values of the producers this signal sends, run as `strategy` says.
    public func flatten<U>(_ strategy: FlattenStrategy) -> Signal<U, Failure>
    where Value == SignalProducer<U, Failure> {
        .init(run: Operators.flatMap(source, strategy) { $0 })
    }
}

extension SignalProducer {
    /// Maps each value to a producer and sends the values of the producers, run as `strategy`
    /// says; completes once this producer and the inner ones have completed.
    public func flatMap<U>(
        _ strategy: FlattenStrategy,
        _ transform: @escaping @Sendable (Value) -> SignalProducer<U, Failure>
    ) -> SignalProducer<U, Failure> {
        .init(run: Operators.flatMap(source, strategy, transform))
    }

    /// Maps each value to a producer that may fail, for a producer that cannot fail, and sends the
    /// values of the inner producers, run as `strategy` says.
    public func flatMap<U, F>(
        _ strategy: FlattenStrategy,
        _ transform: @escaping @Sendable (Value) -> SignalProducer<U, F>
    ) -> SignalProducer<U, F> where Failure == Never {
        .init(run: Operators.flatMap(source.promoteError(F.self), strategy, transform))
    }

    /// Maps each value to a producer, when neither this producer nor the inner ones can fail, and
    /// sends the values of the inner producers, run as `strategy` says.
    public func flatMap<U>(
        _ strategy: FlattenStrategy,
        _ transform: @escaping @Sendable (Value) -> SignalProducer<U, Never>
    ) -> SignalProducer<U, Never> where Failure == Never {
        .init(run: Operators.flatMap(source, strategy, transform))
    }

    /// Sends the values of the producers this producer sends, run as `strategy` says.
    public func flatten<U>(
        _ strategy: FlattenStrategy
    ) -> SignalProducer<U, Failure> where Value == SignalProducer<U, Failure> {
        .init(run: Operators.flatMap(source, strategy) { $0 })
    }
}

/// Holds a send function, so it can be kept in generic state without being re-wrapped.
final class SendHolder<Input: Sendable>: Sendable {
    let send: @Sendable (Input) -> Void

    init(_ send: @escaping @Sendable (Input) -> Void) { self.send = send }
}
