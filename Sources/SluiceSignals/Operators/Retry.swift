import FoundationEssentials

extension SignalProducer {
    /// Restarts the work after a failure, up to `count` more times; values of every attempt are
    /// forwarded, and the last failure ends the stream.
    public func retry(upTo count: Int) -> SignalProducer<Value, Failure> {
        retry { attempt, _ in attempt <= count ? .zero : nil }
    }

    /// Restarts the work after a failure, waiting `interval` on `scheduler` between attempts, up to
    /// `count` more times.
    public func retry(upTo count: Int, interval: Duration, on scheduler: any DateScheduler) -> SignalProducer<
        Value, Failure
    > {
        retry(on: scheduler) { attempt, _ in attempt <= count ? interval : nil }
    }

    /// Restarts the work after a failure when `delay` says so.
    ///
    /// `delay` receives the number of the retry about to happen (1 for the first retry) and the
    /// failure; it returns how long to wait before restarting, or nil to give up and forward the
    /// failure. A zero delay restarts at once; other delays wait on `scheduler` (a `TestScheduler`
    /// in tests); without a scheduler every retry restarts at once. Disposing during a wait cancels the
    /// pending restart and interrupts the observer.
    public func retry(
        on scheduler: (any DateScheduler)? = nil,
        delay: @escaping @Sendable (_ attempt: Int, _ error: Failure) -> Duration?
    ) -> SignalProducer<Value, Failure> {
        let source = self
        return SignalProducer(serialized: { observer, lifetime in
            // Disposing during a wait between attempts must still interrupt the observer.
            let downstream = Operators.serialized(observer, lifetime)
            let current = SerialDisposable()
            lifetime += current
            let attempts = OperatorState(0)

            @Sendable func startAttempt() {
                guard !lifetime.hasEnded else { return }
                // Each attempt is its own subscription, so a failed attempt's resources are released
                // before the next one starts, and attempts never overlap.
                source.start(
                    Observer { event in
                        guard case .failed(let error) = event else { return downstream.send(event) }
                        let attempt = attempts.withLock { count -> Int in
                            count += 1
                            return count
                        }
                        guard let wait = delay(attempt, error) else { return downstream.send(error: error) }
                        if wait <= .zero || scheduler == nil {
                            startAttempt()
                        } else if let scheduler {
                            current.inner = scheduler.schedule(after: wait) { startAttempt() }
                        }
                    }, in: current)
            }
            startAttempt()
        })
    }
}
