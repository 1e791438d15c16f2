import Synchronization

/// Namespace of the event transforms behind every operator; each operator file adds one.
@usableFromInline
enum Operators {}

extension Observer {
    /// Forwards a terminal event of a stream with another value type; ignores values.
    @inlinable
    func sendTerminal<V>(_ event: Event<V, Failure>) {
        switch event {
        case .value: break
        case .failed(let error): send(error: error)
        case .completed: sendCompleted()
        case .interrupted: sendInterrupted()
        }
    }
}

/// Per-subscription state of a stateful operator.
///
/// Operator input is serial, so the lock is never contended in practice; it makes the state's
/// ownership explicit to the compiler and to the thread sanitizer. Never call user code while
/// holding it.
@usableFromInline
final class OperatorState<State: Sendable>: Sendable {
    @usableFromInline
    let storage: Lock<State>

    @inlinable
    init(_ initial: State) {
        storage = Lock(initial)
    }

    @inlinable
    func withLock<R: Sendable>(_ body: (inout State) -> R) -> R {
        storage.withLock { body(&$0) }
    }
}

extension Operators {
    /// Wraps `downstream` in a serial gate for operators whose output can come from more than one
    /// thread (several sources, timers, schedulers): sends through the returned observer are
    /// delivered one at a time, in order, and nothing is delivered after the first terminal event.
    /// When `lifetime` ends, a subscriber that has not had its terminal event gets `interrupted`.
    @inlinable
    static func serialized<V, E>(_ downstream: consuming Observer<V, E>, _ lifetime: Lifetime) -> Observer<V, E> {
        let gate = SerialGate<V, E>(consume downstream)
        // A closure made here is specialized for the caller's types; disposing the gate through
        // `any Disposable` would run the generic code, which is much slower.
        lifetime.observeEnded { gate.interrupt() }
        return Observer(gate.send)
    }
}
