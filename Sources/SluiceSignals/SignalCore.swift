import Synchronization

/// The serial, multicast delivery engine behind `Signal.pipe()`, behind every started
/// `SignalProducer`, and behind each operator that merges several sources.
///
/// It enforces the stream contract:
/// - Events are delivered to observers one at a time. A thread that sends while another thread is
///   delivering (or while an observer is running, i.e. re-entrantly) appends its event to a queue
///   and returns at once; the delivering thread drains the queue in order before it lets go.
///   Nothing blocks and nothing recurses, so an observer that sends into its own signal cannot
///   deadlock (`Mutex` would trap on a nested lock: the lock is never held while observers run).
/// - After a terminal event is accepted, later events are dropped; observers are released as soon
///   as the terminal event has been delivered.
@usableFromInline
final class SignalCore<Value: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    typealias Targets = ContiguousArray<Target>

    @usableFromInline
    struct Target: Sendable {
        @usableFromInline let id: UInt64
        @usableFromInline let observer: Observer<Value, Failure>

        @inlinable
        init(id: UInt64, observer: Observer<Value, Failure>) {
            self.id = id
            self.observer = observer
        }
    }

    /// A queued item: an event for every observer, or for one observer only (a property's
    /// current value sent to a new observer, kept in order with the events around it).
    @usableFromInline
    enum Item: Sendable {
        case broadcast(Event<Value, Failure>)
        case targeted(Event<Value, Failure>, Observer<Value, Failure>)
    }

    @usableFromInline
    struct State: ~Copyable {
        @usableFromInline var targets: Targets = []
        @usableFromInline var nextID: UInt64 = 0
        /// Whether some thread is currently delivering; others enqueue.
        @usableFromInline var isDelivering = false
        /// False once a terminal event was accepted.
        @usableFromInline var isAccepting = true
        /// True once the terminal event was delivered; new observers are interrupted at once.
        @usableFromInline var isTerminated = false
        @usableFromInline var pending: [Item] = []
        @usableFromInline var pendingHead = 0

        @inlinable
        init() {}

        /// Which observers get `event`; a terminal event empties the observer list.
        @inlinable
        mutating func targets(for event: Event<Value, Failure>) -> Targets {
            if event.isTerminating {
                isTerminated = true
                defer { targets = [] }
                return targets
            }
            return targets
        }

        @inlinable
        mutating func enqueue(_ item: Item) {
            pending.append(item)
        }

        /// The next queued item to deliver, or nil (and delivery ends) when the queue is empty.
        @inlinable
        mutating func dequeue() -> Item? {
            guard pendingHead < pending.count else {
                isDelivering = false
                if !pending.isEmpty {
                    pending.removeAll(keepingCapacity: pending.count <= 64)
                    pendingHead = 0
                }
                return nil
            }
            let item = pending[pendingHead]
            pendingHead += 1
            return item
        }
    }

    @usableFromInline
    let state = Mutex(State())

    @inlinable
    init() {}

    /// Sends an event to every observer, serially; see the type's documentation.
    @inlinable
    func send(_ event: Event<Value, Failure>) {
        let targets = state.withLock { s -> Targets? in
            guard s.isAccepting else { return nil }
            if event.isTerminating { s.isAccepting = false }
            if s.isDelivering {
                s.enqueue(.broadcast(event))
                return nil
            }
            s.isDelivering = true
            return s.targets(for: event)
        }
        guard let targets else { return }
        for target in targets { target.observer.send(event) }
        drain()
    }

    /// Delivers queued items until the queue is empty; only the delivering thread calls this.
    @inlinable
    func drain() {
        while let next = state.withLock({ s -> (Item, Targets)? in
            guard let item = s.dequeue() else { return nil }
            switch item {
            case .broadcast(let event): return (item, s.targets(for: event))
            case .targeted: return (item, [])
            }
        }) {
            switch next.0 {
            case .broadcast(let event):
                for target in next.1 { target.observer.send(event) }
            case .targeted(let event, let observer):
                observer.send(event)
            }
        }
    }

    /// Interrupts: values not yet delivered are dropped and observers get `interrupted`.
    @usableFromInline
    func interrupt() {
        let targets = state.withLock { s -> Targets? in
            guard s.isAccepting else { return nil }
            s.isAccepting = false
            if s.isDelivering {
                // Drop queued broadcasts; the current delivery finishes, then `interrupted` follows.
                s.pending.removeSubrange(s.pendingHead...)
                s.enqueue(.broadcast(.interrupted))
                return nil
            }
            s.isDelivering = true
            return s.targets(for: .interrupted)
        }
        guard let targets else { return }
        for target in targets { target.observer.send(.interrupted) }
        drain()
    }

    /// Adds an observer. On a terminated core the observer gets `interrupted` at once.
    /// `initial`, when given, is delivered to this observer alone before any later event.
    @inlinable
    func attach(_ observer: Observer<Value, Failure>, initial: Event<Value, Failure>? = nil) -> (any Disposable)? {
        let (disposable, needsDrain) = attachDeferred(observer, initial: initial)
        if needsDrain { drain() }
        return disposable
    }

    /// Adds an observer without delivering anything yet: when `needsDrain` is true the caller
    /// must call `drain()` once it holds no lock. Lets `MutableProperty` read its value and attach
    /// atomically, under its own lock, without running observers under that lock.
    @inlinable
    func attachDeferred(
        _ observer: Observer<Value, Failure>, initial: Event<Value, Failure>?
    ) -> (disposable: (any Disposable)?, needsDrain: Bool) {
        let (id, needsDrain) = state.withLock { s -> (UInt64?, Bool) in
            var id: UInt64?
            if s.isTerminated {
                // Delivered by the queue, so it still runs outside every lock and in order.
                s.enqueue(.targeted(.interrupted, observer))
            } else {
                id = s.nextID
                s.nextID &+= 1
                s.targets.append(Target(id: id!, observer: observer))
                if let initial { s.enqueue(.targeted(initial, observer)) }
            }
            guard s.pendingHead < s.pending.count, !s.isDelivering else { return (id, false) }
            s.isDelivering = true
            return (id, true)
        }
        guard let id else { return (nil, needsDrain) }
        return (AnyDisposable { [weak self] in self?.detach(id) }, needsDrain)
    }

    /// Accepts an event without delivering it: when the result is true the caller must call
    /// `drain()` once it holds no lock (see `attachDeferred`).
    func enqueue(_ event: Event<Value, Failure>) -> Bool {
        state.withLock { s -> Bool in
            guard s.isAccepting else { return false }
            if event.isTerminating { s.isAccepting = false }
            s.enqueue(.broadcast(event))
            if s.isDelivering { return false }
            s.isDelivering = true
            return true
        }
    }

    @usableFromInline
    func detach(_ id: UInt64) {
        let removed = state.withLock { s -> Target? in
            guard let index = s.targets.firstIndex(where: { $0.id == id }) else { return nil }
            return s.targets.remove(at: index)
        }
        // Release the observer outside the lock: its deinit may run user code.
        _ = removed
    }

    /// Whether the core has delivered its terminal event.
    var isTerminated: Bool { state.withLock { $0.isTerminated } }
}
