import Synchronization

/// Disposes many disposables together, in the order they were added.
///
/// A disposable added after the composite was disposed is disposed at once.
public final class CompositeDisposable: Disposable {
    @usableFromInline
    struct State {
        var entries: [(id: UInt64, disposable: any Disposable)] = []
        var nextID: UInt64 = 0
        var isDisposed = false
    }

    @usableFromInline
    let state = Mutex(State())

    /// Creates an empty composite.
    public init() {}

    /// Creates a composite holding `disposables`.
    public init(_ disposables: [any Disposable]) {
        state.withLock { s in
            for d in disposables {
                s.entries.append((s.nextID, d))
                s.nextID &+= 1
            }
        }
    }

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool { state.withLock { $0.isDisposed } }

    /// Adds a disposable; returns a handle that removes it again (without disposing it).
    @discardableResult
    public func add(_ disposable: (any Disposable)?) -> (any Disposable)? {
        guard let disposable else { return nil }
        let id = state.withLock { s -> UInt64? in
            if s.isDisposed { return nil }
            let id = s.nextID
            s.nextID &+= 1
            s.entries.append((id, disposable))
            return id
        }
        guard let id else {
            disposable.dispose()
            return nil
        }
        return AnyDisposable { [weak self] in
            self?.state.withLock { s in s.entries.removeAll { $0.id == id } }
        }
    }

    /// Adds a disposable without making a handle to remove it again (cheaper than `add`).
    @usableFromInline
    func insert(_ disposable: (any Disposable)?) {
        guard let disposable else { return }
        let added = state.withLock { s -> Bool in
            if s.isDisposed { return false }
            s.entries.append((s.nextID, disposable))
            s.nextID &+= 1
            return true
        }
        if !added { disposable.dispose() }
    }

    /// Adds a closure to run when the composite is disposed.
    @discardableResult
    public func add(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        add(AnyDisposable(action))
    }

    /// Disposes every disposable added, in order, once.
    public func dispose() {
        let entries = state.withLock { s -> [(id: UInt64, disposable: any Disposable)] in
            if s.isDisposed { return [] }
            s.isDisposed = true
            defer { s.entries = [] }
            return s.entries
        }
        for entry in entries { entry.disposable.dispose() }
    }

    /// Adds a disposable to the composite.
    @discardableResult
    public static func += (lhs: CompositeDisposable, rhs: (any Disposable)?) -> (any Disposable)? {
        lhs.add(rhs)
    }
}
