import Synchronization

// Not final, for one subclass in this module only (`SinkSubscription`, a started producer's
// subscription and sink in one object); its members are final, so calls need no dynamic dispatch.
// `@unchecked`: a class that is not final cannot be checked; its state is guarded as noted below.

/// Disposes many disposables together, in the order they were added.
///
/// A disposable added after the composite was disposed is disposed at once.
public class CompositeDisposable: Disposable, @unchecked Sendable {
    /// One thing to dispose: a disposable, or a closure (cheaper: no wrapper object).
    @usableFromInline
    enum Entry: Sendable {
        case disposable(any Disposable)
        case action(@Sendable () -> Void)

        @inlinable
        func run() {
            switch self {
            case .disposable(let disposable): disposable.dispose()
            case .action(let action): action()
            }
        }
    }

    @usableFromInline
    struct State {
        /// The first entry, kept inline: most lifetimes hold one or two, and this saves an array.
        @usableFromInline var first: (id: UInt64, entry: Entry)?
        /// The second entry, also kept inline: a transfer's lifetime collects two (its gate and
        /// the transport's cancel), and an array for them was one more allocation per request.
        @usableFromInline var second: (id: UInt64, entry: Entry)?
        /// A third inline entry: a client's request adds its in-flight registration to those two.
        @usableFromInline var third: (id: UInt64, entry: Entry)?
        @usableFromInline var entries: [(id: UInt64, entry: Entry)]
        @usableFromInline var nextID: UInt64
        @usableFromInline var isDisposed: Bool

        // The values are set here, not as the properties' initial values, which an inlined
        // `init` would reach through calls into this module.
        @inlinable
        init() {
            first = nil
            second = nil
            third = nil
            entries = []
            nextID = 0
            isDisposed = false
        }

        /// Adds an entry, inline while there is room after the last one. Order is kept: the inline
        /// entries run first, in order, then the array's.
        @inlinable
        mutating func append(_ item: consuming (id: UInt64, entry: Entry)) {
            if first == nil && second == nil && third == nil && entries.isEmpty {
                first = item
            } else if second == nil && third == nil && entries.isEmpty {
                second = item
            } else if third == nil && entries.isEmpty {
                third = item
            } else {
                // Room for a few at once: a subscription's lifetime typically collects two to
                // four, and growing from one element reallocates at each step.
                if entries.capacity == 0 { entries.reserveCapacity(4) }
                entries.append(item)
            }
        }
    }

    @usableFromInline let spin = SpinLock()
    // Guarded by `spin`: only touched between `spin.lock()` and `spin.unlock()`, and those sections
    // are short and never call out, hence `nonisolated(unsafe)` and no exclusivity checks.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) final var storage: State
    @usableFromInline let disposed: Atomic<Bool>
    /// Creates an empty composite.
    @inlinable
    public init() {
        // Set here, not as the property's initial value: that would be a call into this module
        // from every inlined `init`, building the state on the stack and copying it in.
        storage = State()
        disposed = Atomic(false)
    }

    /// Runs `body` with the entries locked.
    @inlinable
    final func withState<R>(_ body: (inout State) -> R) -> R {
        spin.lock()
        defer { spin.unlock() }
        return body(&storage)
    }

    /// Creates a composite holding `disposables`.
    public convenience init(_ disposables: [any Disposable]) {
        self.init()
        for disposable in disposables { insert(disposable) }
    }

    /// Whether `dispose()` has been called.
    @inlinable
    public final var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    /// Adds a disposable; returns a handle that removes it again (without disposing it).
    @discardableResult
    public final func add(_ disposable: (any Disposable)?) -> (any Disposable)? {
        guard let disposable else { return nil }
        let id = withState { s -> UInt64? in
            if s.isDisposed { return nil }
            let id = s.nextID
            s.nextID &+= 1
            s.append((id, .disposable(disposable)))
            return id
        }
        guard let id else {
            disposable.dispose()
            return nil
        }
        return AnyDisposable { [weak self] in
            self?.withState { s in
                if s.first?.id == id { s.first = nil }
                if s.second?.id == id { s.second = nil }
                if s.third?.id == id { s.third = nil }
                s.entries.removeAll { $0.id == id }
            }
        }
    }

    /// Adds a closure to run when the composite is disposed.
    @discardableResult
    public final func add(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        add(AnyDisposable(action))
    }

    /// Adds a disposable without making a handle to remove it again (cheaper than `add`).
    @inlinable
    final func insert(_ disposable: (any Disposable)?) {
        guard let disposable else { return }
        insert(entry: .disposable(disposable))
    }

    /// Adds a closure without a handle to remove it again (cheaper than `add`).
    @inlinable
    final func insert(action: consuming @escaping @Sendable () -> Void) {
        insert(entry: .action(consume action))
    }

    /// Takes `entry` over: it is moved into the entries, with no retain of what it holds.
    @inlinable
    final func insert(entry: consuming Entry) {
        spin.lock()
        if storage.isDisposed {
            spin.unlock()
            entry.run()
            return
        }
        storage.append((storage.nextID, consume entry))
        storage.nextID &+= 1
        spin.unlock()
    }

    /// Disposes every disposable added, in order, once.
    @inlinable
    public final func dispose() {
        // Already disposed (a terminal event ending a subscription that its user disposed): no
        // lock to take.
        if disposed.load(ordering: .acquiring) { return }
        // The entries are moved out whole (a swap, no copy of each entry and no retain and
        // release of what it holds), and run outside the lock.
        var taken = State()
        taken.isDisposed = true
        let wasDisposed = withState { s -> Bool in
            if s.isDisposed { return true }
            swap(&s, &taken)
            return false
        }
        if wasDisposed { return }
        disposed.store(true, ordering: .releasing)
        // Moved out of their slots, so that running them copies (retains) nothing.
        taken.first.take()?.entry.run()
        taken.second.take()?.entry.run()
        taken.third.take()?.entry.run()
        for item in taken.entries { item.entry.run() }
    }

    /// Adds a disposable to the composite.
    @discardableResult
    public static func += (lhs: CompositeDisposable, rhs: (any Disposable)?) -> (any Disposable)? {
        lhs.add(rhs)
    }
}
