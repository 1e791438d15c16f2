/// A hot, multicast stream of events: work that is already happening (task events, reachability
/// changes) and that any number of observers can watch.
///
/// Create one with `Signal.pipe()`: send into the `input` observer, observe the `output` signal.
/// A pipe delivers serially to each observer and follows the grammar documented on `Event`.
///
/// A signal derived with an operator (`signal.map { … }`) is a view of its source: each observation
/// of the derived signal attaches to the source with its own operator state (as a Combine
/// subscriber does), and starts no work. Disposing an observation detaches it; an event whose
/// delivery had already begun on another thread may still arrive.
public final class Signal<Value: Sendable, Failure: Error>: Sendable {
    /// Attaches an observer to the source; returns what detaches it.
    @usableFromInline
    let attach: @Sendable (Observer<Value, Failure>) -> (any Disposable)?

    /// A signal whose every observation runs `attach` (for the package's sources that act when an
    /// observer comes, such as the client's metrics).
    @inlinable
    package init(attach: @escaping @Sendable (Observer<Value, Failure>) -> (any Disposable)?) {
        self.attach = attach
    }

    /// Creates a signal and the observer that sends into it.
    @inlinable
    public static func pipe() -> (output: Signal, input: Observer<Value, Failure>) {
        let core = SignalCore<Value, Failure>()
        let input = Observer<Value, Failure>(core.send)
        let output = Signal { core.attach($0) }
        return (output, input)
    }

    /// Creates a signal that runs `generator` now, with the observer that sends into it and a
    /// lifetime that ends when the signal sends its terminal event.
    @inlinable
    public convenience init(_ generator: (Observer<Value, Failure>, Lifetime) -> Void) {
        let core = SignalCore<Value, Failure>()
        let disposables = CompositeDisposable()
        let lifetime = Lifetime(disposables)
        let input = Observer<Value, Failure> { event in
            core.send(event)
            if event.isTerminating { disposables.dispose() }
        }
        self.init { core.attach($0) }
        generator(input, lifetime)
    }

    /// A signal that never sends anything.
    public static var never: Signal {
        Signal { _ in nil }
    }

    /// A signal that completes as soon as it is observed.
    public static var empty: Signal {
        Signal { observer in
            observer.sendCompleted()
            return nil
        }
    }

    /// Observes every event; returns a disposable that detaches the observer.
    ///
    /// The observation ends by itself after a terminal event, releasing the observer.
    @inlinable
    @discardableResult
    public func observe(_ observer: Observer<Value, Failure>) -> any Disposable {
        observe(observer.action)
    }

    /// Observes every event with a closure.
    @inlinable
    @discardableResult
    public func observe(_ action: @escaping @Sendable (Event<Value, Failure>) -> Void) -> any Disposable {
        let observation = SerialDisposable()
        observation.inner = attach(
            Observer { event in
                guard event.isTerminating else { return action(event) }
                // Detaching is silent: operators with a gate of their own interrupt when the
                // observation's lifetime ends, and that `interrupted` must not reach the observer.
                if observation.isDisposed { return }
                action(event)
                observation.dispose()
            })
        return observation
    }

    /// Observes values only.
    @inlinable
    @discardableResult
    public func observeValues(_ action: @escaping @Sendable (Value) -> Void) -> any Disposable {
        // One closure, not two: values go straight to `action` on the hot path.
        let observation = SerialDisposable()
        observation.inner = attach(
            Observer { event in
                if case .value(let value) = event {
                    action(value)
                } else {
                    observation.dispose()
                }
            })
        return observation
    }

    /// Observes the failure only.
    @discardableResult
    public func observeFailed(_ action: @escaping @Sendable (Failure) -> Void) -> any Disposable {
        observe(Observer(failed: action))
    }

    /// Observes completion only.
    @discardableResult
    public func observeCompleted(_ action: @escaping @Sendable () -> Void) -> any Disposable {
        observe(Observer(completed: action))
    }

    /// Observes interruption only.
    @discardableResult
    public func observeInterrupted(_ action: @escaping @Sendable () -> Void) -> any Disposable {
        observe(Observer(interrupted: action))
    }

    /// Builds a derived signal from an event transform (see `EventTransform`).
    @inlinable
    func lift<U: Sendable, F: Error>(_ transform: EventTransform<Value, Failure, U, F>) -> Signal<U, F> {
        Signal<U, F> { downstream in
            let disposables = CompositeDisposable()
            let upstream = transform.make(downstream, Lifetime(disposables))
            disposables += self.attach(upstream)
            return disposables
        }
    }
}

/// Builds the observer that receives a source's events from the observer of the derived stream.
///
/// Every operator is written once as an `EventTransform` and offered on both `Signal` and
/// `SignalProducer`. The transform is called once per subscription; it may keep state for that
/// subscription and attach resources (timers, inner subscriptions) to the `Lifetime` it is given.
/// Its input is serial, and it must keep its output serial and grammatical.
@usableFromInline
struct EventTransform<InValue: Sendable, InFailure: Error, OutValue: Sendable, OutFailure: Error>: Sendable {
    @usableFromInline
    let make: @Sendable (consuming Observer<OutValue, OutFailure>, Lifetime) -> Observer<InValue, InFailure>

    @inlinable
    init(
        _ make: @escaping @Sendable (consuming Observer<OutValue, OutFailure>, Lifetime) -> Observer<InValue, InFailure>
    ) {
        self.make = make
    }
}
