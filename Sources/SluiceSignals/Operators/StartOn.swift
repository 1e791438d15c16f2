extension SignalProducer {
    /// Runs the work (the start handler) through `scheduler` instead of on the thread that calls
    /// `start`; disposing before it has run cancels it, and the observer gets `interrupted`.
    public func start(on scheduler: any Scheduler) -> SignalProducer<Value, Failure> {
        let source = startHandler
        return SignalProducer(serialized: { downstream, lifetime in
            // Exactly one of the scheduled action and the disposal claims the subscription: either
            // the work runs (and reports its own interruption), or it never will and the disposal
            // sends `interrupted` in its stead.
            let claimed = OperatorState(false)
            @Sendable func claim() -> Bool {
                claimed.withLock { isClaimed in
                    defer { isClaimed = true }
                    return !isClaimed
                }
            }
            lifetime.observeEnded {
                if claim() { downstream.sendInterrupted() }
            }
            lifetime += scheduler.schedule {
                if claim() { source(downstream, lifetime) }
            }
        })
    }
}
