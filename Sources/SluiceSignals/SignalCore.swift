import Synchronization

/// The serial, multicast delivery engine behind `Signal.pipe()`, behind every started
/// `SignalProducer` (as its gate), and behind each operator that merges several sources.
///
/// It enforces the stream contract:
/// - Events are delivered one at a time. Delivering needs the core's delivery token (`wip`, an
///   atomic counter in the style of a queue-drain loop). A sender that finds the token free takes
///   it with one compare-and-swap, delivers, and gives it back with another: no lock on the fast
///   path. A sender that finds it taken (another thread is delivering, or an observer is sending
///   re-entrantly) appends its event to a queue and returns at once; the token's holder drains the
///   queue in order before it lets go. Nothing blocks and nothing recurses, so an observer that
///   sends into its own signal cannot deadlock, and no lock is ever held while observers run.
/// - Attaching and detaching observers go through the same queue, so the observer list is touched
///   only by the token's holder, in order with the events.
/// - After a terminal event, later events are dropped, and observers are released as soon as the
///   terminal event has been delivered.
@usableFromInline
final class SignalCore<Value: Sendable, Failure: Error>: Disposable {
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

    /// A queued piece of work for the token's holder.
    @usableFromInline
    enum Item: Sendable {
        case event(Event<Value, Failure>)
        /// An event for one observer only (a property's current value for a new observer).
        case targeted(Event<Value, Failure>, Observer<Value, Failure>)
        case attach(UInt64, Observer<Value, Failure>)
        case detach(UInt64)
    }

    // The state below is read and written only by the holder of the delivery token. The compiler
    // cannot see the token, hence `nonisolated(unsafe)`: every access happens between acquiring
    // the token (`wip` from 0, with acquiring order) and releasing it (back to 0, with releasing
    // order), so the token serializes these accesses exactly as a lock would. For the same reason
    // the runtime's exclusivity checks are off for them: they cost more than everything else on
    // the path of an event, and the token already guarantees exclusive access.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var single: Target?
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var others: ContiguousArray<Target> = []
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var deliveryEnded = false

    /// The delivery token: 0 when free; otherwise 1 plus the number of enqueue notifications.
    @usableFromInline let wip: Atomic<Int>
    @usableFromInline let pending: Lock<PendingQueue<Item>>
    @usableFromInline let nextID: Atomic<UInt64>
    /// Set by `interrupt()`: values not yet delivered are dropped.
    @usableFromInline let isInterrupting: Atomic<Bool>
    /// Set once the terminal event has been delivered (readable from any thread).
    @usableFromInline let terminated: Atomic<Bool>

    @inlinable
    init() {
        wip = Atomic(0)
        pending = Lock(PendingQueue())
        nextID = Atomic(0)
        isInterrupting = Atomic(false)
        terminated = Atomic(false)
    }

    /// A core with one observer attached from the start (a producer's or an operator's gate).
    @inlinable
    convenience init(observer: Observer<Value, Failure>) {
        self.init()
        single = Target(id: .max, observer: observer)
    }

    // MARK: Sending

    /// Sends an event to every observer, serially; see the type's documentation.
    @inlinable
    func send(_ event: Event<Value, Failure>) {
        if wip.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
            deliver(event)
            if wip.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged { return }
            drain(missed: 1)
        } else if enqueue(.event(event)) {
            drain(missed: 1)
        }
    }

    /// Appends an item for the token's holder; returns true when the caller took the token and
    /// must call `drain()` (once it holds no lock of its own).
    @inlinable
    func enqueue(_ item: Item) -> Bool {
        pending.withLock { $0.append(item) }
        return wip.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0
    }

    /// Accepts an event without delivering it; see `enqueue(_ item:)`.
    @inlinable
    func enqueue(_ event: Event<Value, Failure>) -> Bool {
        enqueue(.event(event))
    }

    /// Delivers queued items and gives the token back; for a caller whose `enqueue` returned true.
    @inlinable
    func drain() {
        drain(missed: 1)
    }

    /// The token holder's loop: deliver everything queued, then account for the notifications
    /// seen, until none arrived meanwhile.
    @inlinable
    func drain(missed: Int) {
        var missed = missed
        while true {
            while let item = pending.withLock({ $0.popFirst() }) { process(item) }
            missed = wip.wrappingSubtract(missed, ordering: .acquiringAndReleasing).newValue
            if missed == 0 { return }
        }
    }

    @inlinable
    func process(_ item: Item) {
        switch item {
        case .event(let event):
            deliver(event)
        case .targeted(let event, let observer):
            if !deliveryEnded { observer.send(event) }
        case .attach(let id, let observer):
            if deliveryEnded {
                observer.send(.interrupted)
            } else if single == nil {
                single = Target(id: id, observer: observer)
            } else {
                others.append(Target(id: id, observer: observer))
            }
        case .detach(let id):
            // Released after this scope, outside every lock: an observer's deinit may run user code.
            if single?.id == id {
                single = nil
            } else if let index = others.firstIndex(where: { $0.id == id }) {
                others.remove(at: index)
            }
        }
    }

    /// Delivers one event to every observer (token holder only).
    @inlinable
    func deliver(_ event: Event<Value, Failure>) {
        if deliveryEnded { return }
        if event.isTerminating {
            deliveryEnded = true
            let lastSingle = single
            let lastOthers = others
            single = nil
            others = []
            terminated.store(true, ordering: .releasing)
            lastSingle?.observer.send(event)
            for target in lastOthers { target.observer.send(event) }
            return
        }
        if isInterrupting.load(ordering: .relaxed) { return }
        if let single { single.observer.send(event) }
        if !others.isEmpty {
            let targets = others
            for target in targets { target.observer.send(event) }
        }
    }

    // MARK: Observers

    /// Adds an observer; on a terminated core it gets `interrupted`. `initial`, when given, is
    /// delivered to this observer alone before any later event.
    @inlinable
    func attach(_ observer: Observer<Value, Failure>, initial: Event<Value, Failure>? = nil) -> (any Disposable)? {
        let (disposable, needsDrain) = attachDeferred(observer, initial: initial)
        if needsDrain { drain() }
        return disposable
    }

    /// Adds an observer without delivering anything yet: when `needsDrain` is true the caller must
    /// call `drain()` once it holds no lock. Lets `MutableProperty` read its value and attach
    /// atomically, under its own lock, without running observers under that lock.
    @inlinable
    func attachDeferred(
        _ observer: Observer<Value, Failure>, initial: Event<Value, Failure>?
    ) -> (disposable: (any Disposable)?, needsDrain: Bool) {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        var needsDrain = enqueue(.attach(id, observer))
        if let initial { needsDrain = enqueue(.targeted(initial, observer)) || needsDrain }
        return (SignalCoreDetacher(core: self, id: id), needsDrain)
    }

    @inlinable
    func detach(_ id: UInt64) {
        if enqueue(.detach(id)) { drain() }
    }

    // MARK: Interruption

    /// Interrupts: values not yet delivered are dropped and observers get `interrupted`.
    @inlinable
    func interrupt() {
        isInterrupting.store(true, ordering: .relaxed)
        send(.interrupted)
    }

    /// Whether the core has delivered its terminal event.
    @inlinable
    var isTerminated: Bool { terminated.load(ordering: .acquiring) }

    /// A core is a disposable: disposing interrupts it (as a producer's lifetime ending does).
    @inlinable
    func dispose() { interrupt() }

    /// Whether the core has delivered its terminal event.
    @inlinable
    var isDisposed: Bool { isTerminated }
}

/// Detaches one observer from a `SignalCore`.
@usableFromInline
final class SignalCoreDetacher<Value: Sendable, Failure: Error>: Disposable {
    @usableFromInline weak let core: SignalCore<Value, Failure>?
    @usableFromInline let id: UInt64
    @usableFromInline let disposed: Atomic<Bool>

    @inlinable
    init(core: SignalCore<Value, Failure>, id: UInt64) {
        self.core = core
        self.id = id
        disposed = Atomic(false)
    }

    @inlinable
    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    @inlinable
    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        core?.detach(id)
    }
}

/// A FIFO queue that reuses its storage.
@usableFromInline
struct PendingQueue<Element> {
    @usableFromInline var items: [Element] = []
    @usableFromInline var head = 0

    @inlinable
    init() {}

    @inlinable
    mutating func append(_ item: Element) { items.append(item) }

    @inlinable
    mutating func popFirst() -> Element? {
        guard head < items.count else {
            if head > 0 {
                items.removeAll(keepingCapacity: items.count <= 64)
                head = 0
            }
            return nil
        }
        let item = items[head]
        head += 1
        return item
    }
}
