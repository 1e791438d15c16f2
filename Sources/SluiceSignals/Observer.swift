/// Receives the events of one subscription.
///
/// An `Observer` is a thin wrapper around a closure; the guarantees of the event grammar
/// (serial delivery, one terminal event) are enforced by the `Signal` or `SignalProducer`
/// that calls it, not by the observer itself.
public final class Observer<Value: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    let action: @Sendable (Event<Value, Failure>) -> Void
    /// The object `targetAction` is called with, for an observer made with `init(target:_:)`.
    @usableFromInline
    let target: (any AnyObject & Sendable)?
    @usableFromInline
    let targetAction: @Sendable (any AnyObject & Sendable, Event<Value, Failure>) -> Void

    /// Creates an observer that runs `action` for every event.
    @inlinable
    public init(_ action: @escaping @Sendable (Event<Value, Failure>) -> Void) {
        self.action = action
        target = nil
        targetAction = { _, _ in }
    }

    /// Creates an observer that calls `action` with `target` for every event.
    ///
    /// For operators whose state is an object: `action`, written as a closure that captures
    /// nothing and casts `target` back (`unsafeDowncast`), needs no context of its own, so the
    /// observer costs one allocation instead of two (a closure capturing the state allocates a
    /// context for it).
    @inlinable
    package init(
        target: any AnyObject & Sendable,
        _ action: @escaping @Sendable (any AnyObject & Sendable, Event<Value, Failure>) -> Void
    ) {
        self.action = { _ in }
        self.target = target
        targetAction = action
    }

    /// Creates an observer from one optional closure per kind of event.
    @inlinable
    public convenience init(
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
        if let target { targetAction(target, event) } else { action(event) }
    }

    /// Delivers a value.
    @inlinable
    public func send(value: Value) {
        send(.value(value))
    }

    /// Delivers a failure; terminal.
    @inlinable
    public func send(error: Failure) {
        send(.failed(error))
    }

    /// Delivers completion; terminal.
    @inlinable
    public func sendCompleted() {
        send(.completed)
    }

    /// Delivers an interruption; terminal.
    @inlinable
    public func sendInterrupted() {
        send(.interrupted)
    }
}
