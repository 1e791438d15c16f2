import FoundationEssentials

extension Operators {
    /// What the step of a time-based operator receives: an event from upstream, or its timer firing.
    enum TimedInput<Value: Sendable, Failure: Error>: Sendable {
        /// An event from the source.
        case upstream(Event<Value, Failure>)
        /// The operator's current timer fired; carries the date the timer was scheduled for.
        case timer(Date)
    }

    /// The serial engine of one subscription of a time-based operator (`timeout`, `delay`,
    /// `debounce`, `throttle`).
    ///
    /// Upstream events and timer firings come from different threads and race. Both are fed
    /// through one serial gate (the `SignalCore` that `Operators.serialized` uses), placed in front
    /// of the operator's step instead of behind it: the step sees its inputs one at a time, never
    /// concurrently nor re-entrantly, so what it sends downstream stays in the order of the state
    /// changes that produced it. (A gate behind the step alone would let a value taken from the
    /// state by a timer be overtaken by a terminal event sent meanwhile by upstream.)
    ///
    /// The machine keeps at most one timer pending: scheduling a new one cancels the previous one,
    /// and a firing that was already queued when its timer was replaced or cancelled is dropped, so
    /// the step only ever sees the current timer. Once a terminal event has been sent, the timer is
    /// cancelled and the step gets nothing more. When the lifetime ends, the timer is cancelled,
    /// nothing more is sent, and a subscriber that has not had its terminal event gets `interrupted`.
    final class TimedMachine<Value: Sendable, Failure: Error>: Sendable {
        /// The body of the operator: handles one input; sends with `send` and sets the timer.
        typealias Step = @Sendable (TimedInput<Value, Failure>, TimedMachine) -> Void

        /// What travels through the gate: the timer carries its token, to recognise stale firings.
        private enum Gated: Sendable {
            case upstream(Event<Value, Failure>)
            case timer(token: UInt64, date: Date)
        }

        private struct Status: Sendable {
            /// The token of the current timer; changing it makes queued firings stale.
            var token: UInt64 = 0
            /// Whether the current timer is pending.
            var isTimerPending = false
            /// Whether downstream has had its terminal event.
            var isTerminated = false
            /// Whether the lifetime has ended; only the final `interrupted` may be sent then.
            var hasEnded = false
        }

        /// The scheduler the operator's timers run on.
        let scheduler: any DateScheduler
        private let downstream: Observer<Value, Failure>
        private let gate = SignalCore<Gated, Never>()
        private let timer = SerialDisposable()
        private let status = OperatorState(Status())

        /// Creates the machine of one subscription; `step` handles every input, serially.
        init(
            _ downstream: Observer<Value, Failure>,
            _ lifetime: Lifetime,
            on scheduler: any DateScheduler,
            step: @escaping Step
        ) {
            self.downstream = downstream
            self.scheduler = scheduler
            // The gate holds its handler until it terminates (when the lifetime ends); the handler
            // refers back weakly so that the pair never forms a cycle.
            _ = gate.attach(Observer { [weak self] event in self?.receive(event, step) })
            // The lifetime owns the machine until it ends.
            lifetime.observeEnded { self.end() }
        }

        /// The observer the source sends its events into.
        var input: Observer<Value, Failure> {
            Observer { event in self.gate.send(.value(.upstream(event))) }
        }

        /// The scheduler's current date.
        var now: Date { scheduler.currentDate }

        /// Sends an event downstream; a terminal event cancels the timer. Called by the step only.
        func send(_ event: Event<Value, Failure>) {
            let accepted = status.withLock { s -> Bool in
                guard !s.isTerminated, !s.hasEnded else { return false }
                if event.isTerminating {
                    s.isTerminated = true
                    s.token &+= 1
                    s.isTimerPending = false
                }
                return true
            }
            guard accepted else { return }
            if event.isTerminating { timer.inner = nil }
            downstream.send(event)
        }

        /// Sets the timer to fire at `date`, replacing the pending one. Called by the step (or
        /// before the source starts) only.
        func schedule(at date: Date) {
            let token = status.withLock { s -> UInt64? in
                guard !s.isTerminated, !s.hasEnded else { return nil }
                s.token &+= 1
                s.isTimerPending = true
                return s.token
            }
            guard let token else { return }
            // Outside every lock: a scheduler may run the action at once, on this thread. A firing
            // that races this assignment is queued by the gate behind the step that scheduled it.
            timer.inner = scheduler.schedule(after: date) { [weak self] in
                self?.gate.send(.value(.timer(token: token, date: date)))
            }
        }

        /// Sets the timer to fire `interval` from now, replacing the pending one.
        func schedule(after interval: Duration) {
            schedule(at: now.addingTimeInterval(interval.timeInterval))
        }

        /// Cancels the pending timer, if any.
        func cancelTimer() {
            status.withLock { s in
                s.token &+= 1
                s.isTimerPending = false
            }
            timer.inner = nil
        }

        private func receive(_ event: Event<Gated, Never>, _ step: Step) {
            switch event {
            case .value(.upstream(let upstream)):
                let isLive = status.withLock { s in !s.isTerminated && !s.hasEnded }
                if isLive { step(.upstream(upstream), self) }
            case .value(.timer(let token, let date)):
                let isCurrent = status.withLock { s -> Bool in
                    guard !s.isTerminated, !s.hasEnded, s.isTimerPending, s.token == token else { return false }
                    s.isTimerPending = false
                    return true
                }
                if isCurrent { step(.timer(date), self) }
            case .completed, .failed, .interrupted:
                // Only `interrupted` is ever sent to the gate: by `end`, when the lifetime ends.
                let wasTerminated = status.withLock { s -> Bool in
                    defer { s.isTerminated = true }
                    return s.isTerminated
                }
                if !wasTerminated { downstream.sendInterrupted() }
            }
        }

        private func end() {
            status.withLock { s in
                s.hasEnded = true
                s.isTimerPending = false
            }
            timer.dispose()
            gate.interrupt()
        }
    }
}
