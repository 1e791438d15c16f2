import Synchronization

/// The serial, multicast delivery engine behind `Signal.pipe()` and a property's signal. (A
/// started producer's gate, which has one observer for its whole life, is a `SerialGate`.)
///
/// It enforces the stream contract:
/// - Events are delivered one at a time, by the holder of the core's `DeliveryToken`: nothing
///   blocks and nothing recurses, so an observer that sends into its own signal cannot deadlock,
///   and no lock is ever held while observers run.
/// - Attaching and detaching observers go through the same queue, so the observer list is touched
///   only by the token's holder, in order with the events.
/// - After a terminal event, later events are dropped, and observers are released as soon as the
///   terminal event has been delivered.
@usableFromInline
final class SignalCore<Value: Sendable, Failure: Error>: Disposable {
    /// A queued piece of work for the token's holder.
    @usableFromInline
    enum Item: Sendable {
        case event(Event<Value, Failure>)
        /// An event for one observer only (a property's current value for a new observer).
        case targeted(Event<Value, Failure>, Observer<Value, Failure>)
        /// An observer to add, in the box it is kept in as the first one (made by the caller, in
        /// code specialized for the types).
        case attach(UInt64, ObserverBox<Value, Failure>)
        case detach(UInt64)
    }

    // The state below is read and written only by the holder of the delivery token. The compiler
    // cannot see the token, hence `nonisolated(unsafe)`: every access happens between acquiring
    // the token (with acquiring order) and releasing it (with releasing order), so the token
    // serializes these accesses exactly as a lock would. For the same reason the runtime's
    // exclusivity checks are off for them: they cost more than everything else on the path of an
    // event, and the token already guarantees exclusive access.
    //
    // Observers are closures (see `Observer`), whose layout is the same whatever the types, so
    // they are stored as they are.

    /// The first observer (a pipe often has only this one), in a box of its own: a closure
    /// read from a variable is retained and released around every call, where the box can be
    /// read unowned (`singleBox`), as the token's holder alone may replace it.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var single: ObserverBox<Value, Failure>?
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var singleID: UInt64 = 0
    /// The first observer's box again, unowned, so delivering to it needs no retain and release:
    /// `single` keeps it alive, and only the token holder can change `single`.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var singleBox: Unmanaged<ObserverBox<Value, Failure>>?
    /// Further observers of a multicast signal.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var others:
        [(id: UInt64, observer: Observer<Value, Failure>)] = []
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var deliveryEnded = false

    /// The delivery token and the queue of items for its holder. `nonisolated(unsafe)` only
    /// because `AtomicLazyReference` does not declare `Sendable`: it publishes the queue atomically,
    /// and the queue has its own lock.
    @usableFromInline nonisolated(unsafe) let token = DeliveryToken<Item>()
    @usableFromInline let nextID: Atomic<UInt64>
    /// Set by `interrupt()`: values not yet delivered are dropped.
    @usableFromInline let isInterrupting: Atomic<Bool>
    /// Set once the terminal event has been delivered (readable from any thread).
    @usableFromInline let terminated: Atomic<Bool>

    @inlinable
    init() {
        nextID = Atomic(0)
        isInterrupting = Atomic(false)
        terminated = Atomic(false)
    }

    @inlinable
    func setSingle(_ box: ObserverBox<Value, Failure>, id: UInt64) {
        single = box
        singleID = id
        singleBox = Unmanaged.passUnretained(box)
    }

    /// Lets go of the first observer. (No boxing here: a detach may run unspecialized, where
    /// making an `ObserverBox` even to map nothing looked up its type metadata.)
    @inlinable
    func clearSingle() {
        single = nil
        singleID = 0
        singleBox = nil
    }

    // MARK: Sending

    /// Sends an event to every observer, serially; see the type's documentation.
    @inlinable
    func send(_ event: Event<Value, Failure>) {
        token.run(
            now: { deliver(event) }, queue: { token.pending.withLock { $0.append(.event(event)) } },
            drain: { drain(missed: $0) })
    }

    /// Processes an item now if the token is free, or queues it for the token's holder.
    @inlinable
    func submit(_ item: Item) {
        token.run(
            now: { process(item) }, queue: { token.pending.withLock { $0.append(item) } }, drain: { drain(missed: $0) })
    }

    /// Appends an item for the token's holder; returns true when the caller took the token and
    /// must call `drain()` (once it holds no lock of its own).
    @inlinable
    func enqueue(_ item: Item) -> Bool {
        token.enqueue(item)
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

    /// The token holder's loop: deliver everything queued, then an interruption that arrived
    /// while the token was held (see `interrupt`), after everything queued before it.
    @inlinable
    func drain(missed: Int) {
        token.drain(
            missed: missed, process: { process($0) },
            afterQueue: { if !deliveryEnded && isInterrupting.load(ordering: .relaxed) { deliver(.interrupted) } })
    }

    @inlinable
    func process(_ item: Item) {
        switch item {
        case .event(let event):
            deliver(event)
        case .targeted(let event, let observer):
            if !deliveryEnded { observer.send(event) }
        case .attach(let id, let box):
            if deliveryEnded {
                box.observer.send(.interrupted)
            } else if single == nil {
                setSingle(box, id: id)
            } else {
                others.append((id, box.observer))
            }
        case .detach(let id):
            // Released after this scope, outside every lock: an observer's deinit may run user code.
            if single != nil && singleID == id {
                clearSingle()
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
            // Moved out, not copied: no retain and release of each observer.
            let lastSingle = single.take()
            var lastOthers: [(id: UInt64, observer: Observer<Value, Failure>)] = []
            swap(&lastOthers, &others)
            clearSingle()
            terminated.store(true, ordering: .releasing)
            if let lastSingle { lastSingle.observer.send(event) }
            for target in lastOthers { target.observer.send(event) }
            return
        }
        if isInterrupting.load(ordering: .relaxed) { return }
        if let singleBox { singleBox._withUnsafeGuaranteedRef { $0.observer.send(event) } }
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
        guard initial == nil else {
            let (disposable, needsDrain) = attachDeferred(observer, initial: initial)
            if needsDrain { drain() }
            return disposable
        }
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        submit(.attach(id, ObserverBox(observer)))
        return SignalCoreDetacher(core: self, id: id)
    }

    /// Adds an observer without delivering anything yet: when `needsDrain` is true the caller must
    /// call `drain()` once it holds no lock. Lets `MutableProperty` read its value and attach
    /// atomically, under its own lock, without running observers under that lock.
    @inlinable
    func attachDeferred(
        _ observer: Observer<Value, Failure>, initial: Event<Value, Failure>?
    ) -> (disposable: (any Disposable)?, needsDrain: Bool) {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        var needsDrain = enqueue(.attach(id, ObserverBox(observer)))
        if let initial { needsDrain = enqueue(.targeted(initial, observer)) || needsDrain }
        return (SignalCoreDetacher(core: self, id: id), needsDrain)
    }

    @inlinable
    func detach(_ id: UInt64) {
        submit(.detach(id))
    }

    // MARK: Interruption

    /// Interrupts: values not yet delivered are dropped and observers get `interrupted`.
    @inlinable
    func interrupt() {
        // A core that has delivered its terminal event would drop the interruption anyway; this
        // is the common case (the end of a subscription disposes its lifetime while the terminal
        // event is still being delivered), and queueing the event would allocate the queue.
        if terminated.load(ordering: .acquiring) { return }
        isInterrupting.store(true, ordering: .relaxed)
        // When the token is taken, nothing is queued (which would allocate the queue): the holder
        // sees the notification and delivers `interrupted` in its `drain`, after what was queued
        // before.
        token.run(now: { deliver(.interrupted) }, queue: {}, drain: { drain(missed: $0) })
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

/// A `SignalCore`'s first observer (see `SignalCore.single`).
@usableFromInline
final class ObserverBox<Value: Sendable, Failure: Error>: Sendable {
    @usableFromInline let observer: Observer<Value, Failure>

    @inlinable
    init(_ observer: Observer<Value, Failure>) {
        self.observer = observer
    }
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
