import FoundationEssentials

extension Operators {
    /// The events a `delay` holds back, in arrival order, each with the date it falls due.
    struct DelayQueue<V: Sendable, E: Error>: Sendable {
        private var entries: [(due: Date, event: Event<V, E>)] = []
        private var head = 0

        /// Whether no event is waiting.
        var isEmpty: Bool { head == entries.count }

        /// The date the oldest waiting event falls due.
        var nextDue: Date? { isEmpty ? nil : entries[head].due }

        /// Adds an event; returns true if it is the only one waiting (so no timer is set yet).
        mutating func append(_ event: Event<V, E>, due: Date) -> Bool {
            entries.append((due, event))
            return entries.count - head == 1
        }

        /// Removes and returns the oldest event, whose timer fired, with every later one due by `now`.
        mutating func popDue(by now: Date) -> [Event<V, E>] {
            var due: [Event<V, E>] = []
            while head < entries.count, due.isEmpty || entries[head].due <= now {
                due.append(entries[head].event)
                head += 1
            }
            if head == entries.count {
                entries.removeAll(keepingCapacity: entries.count <= 64)
                head = 0
            } else if head >= 64, head * 2 >= entries.count {
                entries.removeFirst(head)
                head = 0
            }
            return due
        }
    }

    /// Delays values, `completed` and `failed` by `interval`; forwards `interrupted` at once.
    static func delay<V, E>(_ interval: Duration, on scheduler: any DateScheduler) -> EventTransform<V, E, V, E> {
        EventTransform { downstream, lifetime in
            let queue = OperatorState(DelayQueue<V, E>())
            // One timer, for the oldest waiting event, so events leave in arrival order even on a
            // concurrent scheduler, and the number of pending timers stays one.
            let machine = TimedMachine(downstream, lifetime, on: scheduler) { input, machine in
                switch input {
                case .upstream(.interrupted):
                    queue.withLock { $0 = DelayQueue() }
                    machine.send(.interrupted)  // cancels the timer
                case .upstream(let event):
                    let due = machine.now.addingTimeInterval(interval.timeInterval)
                    let isFirst = queue.withLock { $0.append(event, due: due) }
                    if isFirst { machine.schedule(at: due) }
                case .timer:
                    let now = machine.now
                    let due = queue.withLock { $0.popDue(by: now) }
                    for event in due { machine.send(event) }
                    if let next = queue.withLock({ $0.nextDue }) { machine.schedule(at: next) }
                }
            }
            return machine.input
        }
    }
}

extension Signal {
    /// Delays every value, and `completed` or `failed`, by `interval` on `scheduler`, keeping their
    /// order; `interrupted` is forwarded at once and drops the events still waiting.
    public func delay(_ interval: Duration, on scheduler: any DateScheduler) -> Signal<Value, Failure> {
        lift(Operators.delay(interval, on: scheduler))
    }
}

extension SignalProducer {
    /// Delays every value, and `completed` or `failed`, by `interval` on `scheduler`, keeping their
    /// order; `interrupted` (disposal) is forwarded at once and drops the events still waiting.
    public func delay(_ interval: Duration, on scheduler: any DateScheduler) -> SignalProducer<Value, Failure> {
        lift(Operators.delay(interval, on: scheduler))
    }
}
