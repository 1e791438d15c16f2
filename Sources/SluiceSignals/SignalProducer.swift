import Synchronization

/// A cold stream: a recipe for work that runs afresh on every `start`, such as an HTTP request.
///
/// Nothing happens until the producer is started. Each `start` runs the start handler again (so
/// `retry` re-runs a request) and returns a disposable; disposing it interrupts the work: the
/// observer receives `interrupted`, and everything attached to the subscription's `Lifetime` is
/// disposed. Events reach the observer serially and follow the grammar documented on `Event`,
/// even when the start handler sends from several threads at once. A finished or disposed
/// subscription releases its observer and the work's resources; the operators' closures go when
/// the work lets go of the observer it was given (a handler lets go of it when it returns, or when
/// its lifetime ends).
public struct SignalProducer<Value: Sendable, Failure: Error>: Sendable {
    /// Runs the work for one subscription, sending into an observer that is already serial. The
    /// observer is handed over (`consuming`): each stage keeps the one it is given (in its closure,
    /// its gate) without a retain of its own and its caller's release after the call.
    @usableFromInline
    let startHandler: @Sendable (consuming Observer<Value, Failure>, Lifetime) -> Void

    /// Creates a producer whose every start runs `startHandler` with a fresh observer and the
    /// lifetime of that subscription. The handler may send from any thread.
    @inlinable
    public init(_ startHandler: @escaping @Sendable (Observer<Value, Failure>, Lifetime) -> Void) {
        self.startHandler = { downstream, lifetime in
            // The gate makes the handler's sends serial before any operator sees them; when the
            // lifetime ends (disposal), the gate interrupts.
            startHandler(Operators.serialized(consume downstream, lifetime), lifetime)
        }
    }

    /// Creates a producer from a handler whose sends are already serial (operators use this).
    @inlinable
    init(serialized startHandler: @escaping @Sendable (consuming Observer<Value, Failure>, Lifetime) -> Void) {
        self.startHandler = startHandler
    }

    /// Starts the work, delivering its events to `observer`; dispose the result to interrupt it.
    @inlinable
    @discardableResult
    public func start(_ observer: consuming Observer<Value, Failure> = Observer { _ in }) -> any Disposable {
        start(delivering: .observer(consume observer))
    }

    /// Starts the work with its subscription already installed in `slot`, so that events the work
    /// sends before `start` would return (and what they trigger, such as a retry) can never be
    /// overwritten by a late assignment of the returned disposable.
    func start(_ observer: Observer<Value, Failure>, in slot: SerialDisposable) {
        let subscription = SinkSubscription(.observer(observer))
        slot.inner = subscription
        startHandler(subscription.sink, Lifetime(subscription))
    }

    /// Starts the work, its sink handing the events to `delivery`.
    ///
    /// `delivery`, like the observer or closure of every public `start`, is taken over
    /// (`consuming`): a closure made for the call is kept as it is, with no retain here and no
    /// release by the caller after the call. Each is passed on with `consume`, or it would live to
    /// the end of its scope, after the work's start, and be copied for the subscription.
    @inlinable
    func start(delivering delivery: consuming SinkDelivery<Value, Failure>) -> any Disposable {
        let subscription = SinkSubscription(consume delivery)
        startHandler(subscription.sink, Lifetime(subscription))
        return subscription
    }

    /// Starts the work, running `action` for every event.
    @inlinable
    @discardableResult
    public func start(_ action: consuming @escaping @Sendable (Event<Value, Failure>) -> Void) -> any Disposable {
        start(delivering: .events(consume action))
    }

    /// Starts the work, observing values only.
    @inlinable
    @discardableResult
    public func startWithValues(_ action: consuming @escaping @Sendable (Value) -> Void) -> any Disposable {
        start(delivering: .values(consume action))
    }

    /// Starts the work, observing each value as a success and the failure as a failure.
    ///
    /// An interruption (a disposal, a cancellation) is not a failure, so it does not call
    /// `action`; to hear about every ending as a completion handler would, cancellations
    /// included, use `startWithCompletion`.
    @inlinable
    @discardableResult
    public func startWithResult(_ action: consuming @escaping @Sendable (Result<Value, Failure>) -> Void)
        -> any Disposable
    {
        start(delivering: .result(consume action))
    }

    /// Starts the work, observing the failure only.
    @inlinable
    @discardableResult
    public func startWithFailed(_ action: consuming @escaping @Sendable (Failure) -> Void) -> any Disposable {
        start(delivering: .failed(consume action))
    }

    /// Starts the work, observing completion only.
    @inlinable
    @discardableResult
    public func startWithCompleted(_ action: consuming @escaping @Sendable () -> Void) -> any Disposable {
        start(delivering: .completed(consume action))
    }

    /// Starts the work, observing interruption only.
    @inlinable
    @discardableResult
    public func startWithInterrupted(_ action: consuming @escaping @Sendable () -> Void) -> any Disposable {
        start(delivering: .interrupted(consume action))
    }

    /// Builds a derived producer from an event transform (see `EventTransform`).
    @inlinable
    func lift<U: Sendable, F: Error>(_ transform: EventTransform<Value, Failure, U, F>) -> SignalProducer<U, F> {
        let source = startHandler
        return SignalProducer<U, F>(serialized: { downstream, lifetime in
            source(transform.make(consume downstream, lifetime), lifetime)
        })
    }
}

extension SignalProducer {
    /// A producer that sends one value and completes.
    public init(value: Value) {
        self.init(serialized: { observer, _ in
            observer.send(value: value)
            observer.sendCompleted()
        })
    }

    /// A producer that fails at once.
    public init(error: Failure) {
        self.init(serialized: { observer, _ in observer.send(error: error) })
    }

    /// A producer that sends the result's value and completes, or fails with its error.
    public init(result: Result<Value, Failure>) {
        switch result {
        case .success(let value): self.init(value: value)
        case .failure(let error): self.init(error: error)
        }
    }

    /// A producer that sends each value in order and completes; stops early when disposed.
    public init<S: Sequence & Sendable>(values: S) where S.Element == Value {
        self.init(serialized: { observer, lifetime in
            for value in values {
                if lifetime.hasEnded { return }
                observer.send(value: value)
            }
            observer.sendCompleted()
        })
    }

    /// A producer that runs `action` on every start and sends its result.
    public init(resultOf action: @escaping @Sendable () -> Result<Value, Failure>) {
        self.init(serialized: { observer, _ in
            switch action() {
            case .success(let value):
                observer.send(value: value)
                observer.sendCompleted()
            case .failure(let error):
                observer.send(error: error)
            }
        })
    }

    /// A producer that completes at once without a value.
    public static var empty: SignalProducer {
        SignalProducer(serialized: { observer, _ in observer.sendCompleted() })
    }

    /// A producer that never sends anything until it is disposed.
    public static var never: SignalProducer {
        SignalProducer(serialized: { observer, lifetime in
            lifetime.observeEnded { observer.sendInterrupted() }
        })
    }

    /// A producer that observes `signal` on each start.
    public init(_ signal: Signal<Value, Failure>) {
        self.init({ observer, lifetime in
            lifetime += signal.observe(observer)
        })
    }
}
