import Synchronization

/// Where a started producer's sink hands its events: the user's observer, or one of the closures
/// of `start(_:)`, `startWithValues(_:)` and their siblings, kept as it was given.
///
/// The sink's closure captures this enum instead of an `Observer` made around the user's closure:
/// a start then allocates one observer and one context for its sink, not two of each, and an
/// event reaches the user's closure through one switch instead of a second observer and closure.
@usableFromInline
enum SinkDelivery<Value: Sendable, Failure: Error>: Sendable {
    /// Every event, to an observer (`start(_:)` with an observer).
    case observer(Observer<Value, Failure>)
    /// Every event, to a closure (`start(_:)` with a closure).
    case events(@Sendable (Event<Value, Failure>) -> Void)
    /// The values (`startWithValues`).
    case values(@Sendable (Value) -> Void)
    /// The values as successes and the failure as a failure (`startWithResult`).
    case result(@Sendable (Result<Value, Failure>) -> Void)
    /// The failure (`startWithFailed`).
    case failed(@Sendable (Failure) -> Void)
    /// The completion (`startWithCompleted`).
    case completed(@Sendable () -> Void)
    /// The interruption (`startWithInterrupted`).
    case interrupted(@Sendable () -> Void)

    /// Hands `event` to the observer, or to the closure if it takes this kind of event.
    @inlinable
    func deliver(_ event: Event<Value, Failure>) {
        switch self {
        case .observer(let observer): observer.send(event)
        case .events(let action): action(event)
        case .values(let action):
            if case .value(let value) = event { action(value) }
        case .result(let action):
            switch event {
            case .value(let value): action(.success(value))
            case .failed(let error): action(.failure(error))
            case .completed, .interrupted: break
            }
        case .failed(let action):
            if case .failed(let error) = event { action(error) }
        case .completed(let action):
            if case .completed = event { action() }
        case .interrupted(let action):
            if case .interrupted = event { action() }
        }
    }
}

/// The end of a started producer and its subscription's disposables, in one object: hands each
/// event to `delivery`, drops anything after the terminal event, and ends the subscription's
/// lifetime once the terminal event is delivered. Events arrive serially (see `SignalCore`), so
/// the flag needs no stronger ordering. (One object where a composite, an observer's closure
/// context and the observer were three: a closure that captures only the sink needs no context.)
@usableFromInline
final class SubscriptionSink<Value: Sendable, Failure: Error>: CompositeDisposable, @unchecked Sendable {
    // @unchecked: `delivery` is only touched by `receive`, which events reach serially (the stream
    // contract), and let go of after the terminal event, which the atomic flag lets through once.
    /// The user's observer or closure, released once the terminal event is delivered (the
    /// subscription's disposable may be kept much longer).
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) final var delivery: SinkDelivery<Value, Failure>?

    @inlinable
    init(_ delivery: SinkDelivery<Value, Failure>) {
        self.delivery = delivery
        super.init()
    }

    /// The observer the producer's work sends to.
    @inlinable
    var observer: Observer<Value, Failure> {
        Observer { [self] event in receive(event) }
    }

    @inlinable
    func receive(_ event: Event<Value, Failure>) {
        if sinkTerminated.load(ordering: .relaxed) { return }
        if event.isTerminating {
            guard !sinkTerminated.exchange(true, ordering: .acquiringAndReleasing) else { return }
            delivery?.deliver(event)
            delivery = nil
            dispose()
        } else {
            delivery?.deliver(event)
        }
    }
}
