extension Operators {
    @inlinable
    static func attemptMap<V, E, U>(
        _ transform: @escaping @Sendable (V) throws(E) -> U
    ) -> EventTransform<V, E, U, E> {
        EventTransform { downstream, _ in
            let failed = OperatorState(false)
            return Observer { event in
                if failed.withLock({ $0 }) { return }
                switch event {
                case .value(let value):
                    do throws(E) {
                        downstream.send(value: try transform(value))
                    } catch {
                        failed.withLock { $0 = true }
                        downstream.send(error: error)
                    }
                default:
                    downstream.sendTerminal(event)
                }
            }
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

extension SignalProducer {
    /// Transforms each value with a closure that may fail; the first failure ends the stream.
    @inlinable
    public func attemptMap<U>(
        _ transform: @escaping @Sendable (Value) throws(Failure) -> U
    ) -> SignalProducer<U, Failure> {
        lift(Operators.attemptMap(transform))
    }
}
