/// Where a started producer's sink hands its events: the user's observer, or one of the closures
/// of `start(_:)`, `startWithValues(_:)` and their siblings, kept as it was given.
///
/// The sink's closure captures this enum instead of an `Observer` made around the user's closure:
/// a start then allocates one observer and one context for its sink, not two of each, and an
/// event reaches the user's closure through one switch instead of a second observer and closure.
@usableFromInline
enum SinkDelivery<Value: Sendable, Failure: Error>: Sendable {
    case observer(Observer<Value, Failure>)
    case events(@Sendable (Event<Value, Failure>) -> Void)
    case values(@Sendable (Value) -> Void)
    case result(@Sendable (Result<Value, Failure>) -> Void)
    case failed(@Sendable (Failure) -> Void)
    case completed(@Sendable () -> Void)
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
