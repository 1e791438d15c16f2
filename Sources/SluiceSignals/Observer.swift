/// Receives the events of one subscription.
///
/// An `Observer` is a closure and nothing more: a value, so that an operator's per-subscription
/// state is the closure's context alone, with no object around it. The guarantees of the event
/// grammar (serial delivery, one terminal event) are enforced by the `Signal` or
/// `SignalProducer` that calls it, not by the observer itself.
public struct Observer<Value: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    let action: @Sendable (Event<Value, Failure>) -> Void

    /// Creates an observer that runs `action` for every event.
    @inlinable
    public init(_ action: @escaping @Sendable (Event<Value, Failure>) -> Void) {
        self.action = action
    }

    /// Creates an observer from one optional closure per kind of event.
    @inlinable
    public init(
        value: (@Sendable (Value) -> Void)? = nil,
        failed: (@Sendable (Failure) -> Void)? = nil,
        completed: (@Sendable () -> Void)? = nil,
        interrupted: (@Sendable () -> Void)? = nil
    ) {
        self.init { event in
            switch event {
            case .value(let v): value?(v)
            case .failed(let e): failed?(e)
            case .completed: completed?()
            case .interrupted: interrupted?()
            }
        }
    }

    /// Delivers an event.
    @inlinable
    public func send(_ event: Event<Value, Failure>) {
        action(event)
    }

    /// Delivers a value.
    @inlinable
    public func send(value: Value) {
        action(.value(value))
    }

    /// Delivers a failure; terminal.
    @inlinable
    public func send(error: Failure) {
        action(.failed(error))
    }

    /// Delivers completion; terminal.
    @inlinable
    public func sendCompleted() {
        action(.completed)
    }

    /// Delivers an interruption; terminal.
    @inlinable
    public func sendInterrupted() {
        action(.interrupted)
    }
}
