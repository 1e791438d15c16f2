import Synchronization

extension Operators {
    @inlinable
    static func attemptMap<V, E, U>(
        _ transform: @escaping @Sendable (V) throws(E) -> U
    ) -> EventTransform<V, E, U, E> {
        EventTransform { downstream, _ in
            // One object per subscription for the state, with a relaxed flag instead of a lock: a
            // producer's stage, with no upstream of its own to start (a signal's events arrive).
            let run = AttemptMapStage<V, E, U>(upstream: { _, _ in }, transform: transform)
            run.downstream = downstream
            return Observer { event in run.receive(event) }
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
