import FoundationEssentials
import Synchronization

/// The requests a client has started and not yet finished, so they can be cancelled together
/// (AFHTTPClient's `cancelAllHTTPOperationsWithMethod:path:`).
final class InFlightRequests: Sendable {
    private struct Entry {
        let method: HTTPMethod
        let url: URL
        let cancel: Cancel
    }

    /// How an entry is cancelled.
    private enum Cancel {
        case action(@Sendable () -> Void)
        /// Ending the subscription's lifetime, as disposing it would: no closure to allocate.
        case lifetime(Lifetime)

        func run() {
            switch self {
            case .action(let action): action()
            case .lifetime(let lifetime): lifetime.end()
            }
        }
    }

    /// A request's entry, removed when its subscription's lifetime disposes it: one object serves
    /// as the disposable, where a closure capturing the id was one more allocation per request.
    final class Registration: Disposable {
        private let id: UInt64
        private let owner: InFlightRequests
        private let disposed = Atomic(false)

        fileprivate init(id: UInt64, owner: InFlightRequests) {
            self.id = id
            self.owner = owner
        }

        var isDisposed: Bool { disposed.load(ordering: .acquiring) }

        func dispose() {
            guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
            owner.remove(id)
        }
    }

    private struct State {
        var entries = IDTable<Entry>()
        var nextID: UInt64 = 0
    }

    private let state = Lock(State())

    /// Records a started request; `cancel` interrupts it.
    func register(method: HTTPMethod, url: URL, cancel: @escaping @Sendable () -> Void) -> UInt64 {
        add(Entry(method: method, url: url, cancel: .action(cancel)))
    }

    /// Records a started subscription, cancelled by ending `lifetime`; the registration removes the
    /// entry when it is disposed (add it to the same lifetime).
    func register(method: HTTPMethod, url: URL, lifetime: Lifetime) -> Registration {
        Registration(id: add(Entry(method: method, url: url, cancel: .lifetime(lifetime))), owner: self)
    }

    /// Records a started subscription, cancelled by ending `lifetime`; returns the id its owner
    /// removes when the subscription ends (the owner serves as the registration: no object of its own).
    func add(method: HTTPMethod, url: URL, lifetime: Lifetime) -> UInt64 {
        add(Entry(method: method, url: url, cancel: .lifetime(lifetime)))
    }

    private func add(_ entry: Entry) -> UInt64 {
        state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            s.entries.insert(entry, for: id)
            return id
        }
    }

    /// Forgets a finished request.
    func remove(_ id: UInt64) {
        _ = state.withLock { $0.entries.remove(id) }
    }

    /// How many requests are in flight.
    var count: Int { state.withLock { $0.entries.count } }

    /// Cancels the requests with `method` (any if nil) whose URL path is `path` (any if nil).
    @discardableResult
    func cancel(method: HTTPMethod?, path: String?) -> Int {
        let matching = state.withLock { s -> [Entry] in
            let ids = s.entries.entries.filter { _, entry in
                (method == nil || entry.method == method) && (path == nil || entry.url.path == path)
            }.map(\.id)
            return ids.compactMap { s.entries.remove($0) }
        }
        // Outside the lock: cancelling delivers `interrupted` to observers.
        for entry in matching { entry.cancel.run() }
        return matching.count
    }
}

extension Client {
    /// How many requests this client has in flight.
    public var inFlightCount: Int { inFlight.count }

    /// Cancels every request in flight; each subscriber receives `interrupted`. Returns how many.
    @discardableResult
    public func cancelAll() -> Int {
        inFlight.cancel(method: nil, path: nil)
    }

    /// Cancels the requests in flight with `method` (any if nil) to `path`, which resolves against
    /// the base URL as requests do (any path if nil). Returns how many were cancelled.
    @discardableResult
    public func cancelAll(method: HTTPMethod?, path: String?) -> Int {
        let resolvedPath = path.flatMap { try? url(for: $0).path }
        return inFlight.cancel(method: method, path: resolvedPath)
    }
}
