import Synchronization

extension Operators {
    @inlinable
    static func attemptMap<V, E, U>(
        _ transform: @escaping @Sendable (V) throws(E) -> U
    ) -> EventTransform<V, E, U, E> {
        EventTransform { downstream, _ in
            // One object per subscription for the state, with a relaxed flag instead of a lock.
            let run = AttemptMapRun(downstream: downstream, transform: transform)
            return Observer { event in run.receive(event) }
        }
    }
}

/// One subscription of `attemptMap`: transforms values until a transform fails, then drops
/// whatever else arrives.
@usableFromInline
final class AttemptMapRun<V: Sendable, E: Error, U: Sendable>: Sendable {
    @usableFromInline let downstream: Observer<U, E>
    @usableFromInline let transform: @Sendable (V) throws(E) -> U
    /// Set once a transform failed. Events arrive serially (the stream contract), so relaxed
    /// order is enough; atomic so that the compiler and the thread sanitizer see it safe.
    @usableFromInline let failed: Atomic<Bool>

    @inlinable
    init(downstream: Observer<U, E>, transform: @escaping @Sendable (V) throws(E) -> U) {
        self.downstream = downstream
        self.transform = transform
        failed = Atomic(false)
    }

    @inlinable
    func receive(_ event: Event<V, E>) {
        if failed.load(ordering: .relaxed) { return }
        switch event {
        case .value(let value):
            do throws(E) {
                downstream.send(value: try transform(value))
            } catch {
                failed.store(true, ordering: .relaxed)
                downstream.send(error: error)
            }
        default:
            downstream.sendTerminal(event)
        }
    }
}

extension Signal {
    /// Transforms each value with a closure that may fail; the first failure ends the stream.
    @inlinable
    public func attemptMap<U>(_ transform: @escaping @Sendable (Value) throws(Failure) -> U) -> Signal<U, Failure> {
        lift(Operators.attemptMap(transform))
    }
}
