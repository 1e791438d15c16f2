import Synchronization

/// The delivery token of a serial gate (`SignalCore`, `SerialGate`) and its queue, in the style of
/// a queue-drain loop. A sender that finds the token free takes it with one compare-and-swap,
/// delivers, and gives it back with another: no lock on the fast path. A sender that finds it
/// taken (another thread delivers, or an observer sends re-entrantly) queues its item and
/// notifies the holder, which drains the queue in order before it lets go. Nothing blocks and
/// nothing recurses, and no lock is held while observers run.
@usableFromInline
struct DeliveryToken<Item>: ~Copyable {
    /// 0 when the token is free; otherwise 1 plus the number of notifications of queued work.
    @usableFromInline let wip: Atomic<Int>
    /// Queued items, a `LockStorage<PendingQueue<Item>>` made on first use, since most gates never
    /// queue anything. Kept as `AnyObject`: the fields of a generic class are destroyed by generic
    /// code that looks up each field's type metadata at run time, which would cost more than the
    /// rest of a producer's start and dispose together; `unsafeDowncast` casts it back for free.
    @usableFromInline let pendingStorage: AtomicLazyReference<AnyObject>
    /// Whether `pendingStorage` was made: the drain loop reads this flag instead of the reference,
    /// because `AtomicLazyReference.load()` is not inlined and looks up the metadata of
    /// `Unmanaged<AnyObject>` at run time on every call (about a thousand instructions per request).
    @usableFromInline let hasPendingStorage: Atomic<Bool>

    @inlinable
    init() {
        wip = Atomic(0)
        pendingStorage = AtomicLazyReference()
        hasPendingStorage = Atomic(false)
    }

    /// The queue, made on first use.
    @inlinable
    var pending: LockStorage<PendingQueue<Item>> {
        let storage =
            pendingStorage.load() ?? pendingStorage.storeIfNil(LockStorage<PendingQueue<Item>>.make(PendingQueue()))
        // Set before the caller's item is counted in `wip`, whose read-modify-writes order it
        // before the drain loop's next pass.
        hasPendingStorage.store(true, ordering: .releasing)
        return unsafeDowncast(storage, to: LockStorage<PendingQueue<Item>>.self)
    }

    /// Runs `now` as the token's holder when the token is free, then gives the token back, or
    /// drains what other senders queued meanwhile. When it is taken, runs `queue` instead, which
    /// leaves the work for the holder, and notifies the holder; a caller that finds the holder
    /// gone meanwhile drains as the new one. `drain` is the gate's loop (see `drain(missed:…)`).
    @inlinable
    func run(now: () -> Void, queue: () -> Void, drain: (_ missed: Int) -> Void) {
        if wip.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
            now()
            if wip.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged { return }
            drain(1)
        } else {
            queue()
            if wip.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 { drain(1) }
        }
    }

    /// Appends an item for the token's holder; returns true when the caller took the token and
    /// must drain (once it holds no lock of its own).
    @inlinable
    func enqueue(_ item: Item) -> Bool {
        pending.withLock { $0.append(item) }
        return wip.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0
    }

    /// The token holder's loop: `process` everything queued, then `afterQueue` (a gate delivers an
    /// interruption there, after what was queued before it), then account for the notifications
    /// seen, until none arrived meanwhile.
    @inlinable
    func drain(missed: Int, process: (Item) -> Void, afterQueue: () -> Void) {
        var missed = missed
        while true {
            if hasPendingStorage.load(ordering: .acquiring), let storage = pendingStorage.load() {
                let queue = unsafeDowncast(storage, to: LockStorage<PendingQueue<Item>>.self)
                while let item = queue.withLock({ $0.popFirst() }) { process(item) }
            }
            afterQueue()
            missed = wip.wrappingSubtract(missed, ordering: .acquiringAndReleasing).newValue
            if missed == 0 { return }
        }
    }
}
