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

    /// Hands the terminal `event` to the observer, or to the closure if it takes this kind of
    /// event, and lets go of it: consumed, so the closure is moved out, not copied and released.
    @inlinable
    consuming func deliverLast(_ event: Event<Value, Failure>) {
        deliver(event)
    }

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
