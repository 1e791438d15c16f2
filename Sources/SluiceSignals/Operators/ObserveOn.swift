extension Operators {
    /// The state of one `observe(on:)` subscription.
    struct ObserveOnState<V: Sendable, E: Error>: Sendable {
        /// Events accepted and not yet delivered, in order.
        var queue: [Event<V, E>] = []
        /// Whether a drain is scheduled or running; only one is at any time.
        var isDraining = false
        /// Whether the lifetime has ended; nothing is queued any more.
        var hasEnded = false

        /// Queues an event; returns true if the caller must schedule a drain.
        mutating func enqueue(_ event: Event<V, E>) -> Bool {
            guard !hasEnded else { return false }
            queue.append(event)
            guard !isDraining else { return false }
            isDraining = true
            return true
        }

        /// Takes every queued event, or returns nil (and the drain ends) when none is left.
        mutating func takeAll() -> [Event<V, E>]? {
            guard !queue.isEmpty, !hasEnded else {
                isDraining = false
                return nil
            }
            defer { queue = [] }
            return queue
        }
    }

    /// Delivers every event through `scheduler`, in order and one at a time.
    static func observe<V, E>(on scheduler: any Scheduler) -> EventTransform<V, E, V, E> {
        EventTransform { downstream, lifetime in
            // The gate sends `interrupted` at once when the lifetime ends (disposal), and keeps that
            // event serial with the drain.
            let output = Operators.serialized(downstream, lifetime)
            let state = OperatorState(ObserveOnState<V, E>())
            let scheduled = SerialDisposable()
            lifetime += scheduled
            lifetime.observeEnded {
                state.withLock { s in
                    s.hasEnded = true
                    s.queue = []
                }
            }
            // At most one drain is scheduled or running at a time, so delivery is serial and in
            // order even on a concurrent scheduler; the lock orders one drain's work before the next.
            @Sendable func drain() {
                while let events = state.withLock({ $0.takeAll() }) {
                    for event in events { output.send(event) }
                }
            }
            return Observer { event in
                // Only this observer (whose input is serial) schedules, so assignments to
                // `scheduled` never race one another.
                if state.withLock({ $0.enqueue(event) }) { scheduled.inner = scheduler.schedule(drain) }
            }
        }
    }
}

extension Signal {
    /// Delivers every event through `scheduler` (on its thread or queue), in order and serially,
    /// even when the scheduler is concurrent.
    public func observe(on scheduler: any Scheduler) -> Signal<Value, Failure> {
        lift(Operators.observe(on: scheduler))
    }
}

extension SignalProducer {
    /// Delivers every event through `scheduler` (on its thread or queue), in order and serially,
    /// even when the scheduler is concurrent; disposal sends `interrupted` at once and drops the
    /// events not yet delivered.
    public func observe(on scheduler: any Scheduler) -> SignalProducer<Value, Failure> {
        lift(Operators.observe(on: scheduler))
    }
}
