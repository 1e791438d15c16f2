import FoundationEssentials
import Synchronization

/// Lets identical GET and HEAD requests that are in flight at the same time share one transfer
/// (opt in: `Client.Configuration.coalescesRequests`, or `.coalescing()` placed in a chain).
///
/// Requests are identical when their method, URL, headers and options are equal and they have no
/// body. The first one proceeds; the others join it and each receives the response. One leaving
/// (disposed, cancelled) does not cancel the transfer while another still waits; when all have
/// left, it is cancelled. Once the response has arrived, the next identical request sends its own:
/// nothing is kept for later requests. Each request that shared reports a
/// `TaskEvent.Kind.coalesced` event. Streamed requests (`client.stream`) are never coalesced, as
/// a streaming body can be read once.
public struct CoalescingInterceptor: Interceptor {
    private let registry = CoalescingRegistry()

    /// Creates the interceptor, with its own set of shared transfers.
    public init() {}

    /// Joins an identical request in flight, or proceeds and lets later ones join.
    public func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        guard request.method == .get || request.method == .head, case .empty = request.body,
            case .collected = chain.exchange.mode
        else { return chain.proceed(request) }
        let registry = self.registry
        let key = CoalescingKey(request)
        return SignalProducer { observer, lifetime in
            let membership = registry.join(key) { id in
                chain.proceed(request)
                    // No one joins a transfer whose response has arrived: a later request sends its own.
                    .on(value: { _ in registry.close(key, id: id) }, terminated: { registry.close(key, id: id) })
                    .share(replay: 1)
            } reportToFirst: { id in
                chain.report(.coalesced(CoalescedTransfer(id: id, joined: false)))
            }
            if membership.joined { chain.report(.coalesced(CoalescedTransfer(id: membership.id, joined: true))) }
            lifetime.observeEnded { registry.leave(key, id: membership.id) }
            lifetime += membership.shared.start(observer)
        }
    }
}

extension Interceptor where Self == CoalescingInterceptor {
    /// Shares one transfer among identical GET and HEAD requests in flight at the same time.
    public static func coalescing() -> CoalescingInterceptor { CoalescingInterceptor() }
}

/// A transfer that coalesced requests shared (see `CoalescingInterceptor`).
public struct CoalescedTransfer: Sendable, Equatable {
    /// Identifies the shared transfer: the requests that report the same one shared it.
    public let id: UInt64
    /// Whether this request joined a transfer already in flight (true), or was the one whose
    /// transfer another request joined (false).
    public let joined: Bool

    /// Creates a record.
    public init(id: UInt64, joined: Bool) {
        self.id = id
        self.joined = joined
    }
}

/// What makes two requests the same transfer.
struct CoalescingKey: Hashable, Sendable {
    let method: HTTPMethod
    let url: String
    let headers: HTTPHeaders
    let options: RequestOptions

    init(_ request: Request) {
        method = request.method
        url = request.url.absoluteString
        headers = request.headers
        options = request.options
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(headers)
    }
}

/// The transfers in flight that identical requests may join.
final class CoalescingRegistry: Sendable {
    private struct Entry {
        let id: UInt64
        let shared: SignalProducer<Response, SluiceError>
        let reportToFirst: @Sendable (UInt64) -> Void
        var members: Int
        var told = false
    }

    private struct State {
        var entries: [CoalescingKey: Entry] = [:]
        var nextID: UInt64 = 1
    }

    private let state = Lock(State())

    /// The shared transfer for `key`, joined or made with `make`; whether it was joined.
    func join(
        _ key: CoalescingKey, make: (UInt64) -> SignalProducer<Response, SluiceError>,
        reportToFirst: @escaping @Sendable (UInt64) -> Void
    ) -> (id: UInt64, shared: SignalProducer<Response, SluiceError>, joined: Bool) {
        let (result, tellFirst) = state.withLock {
            s -> (
                (id: UInt64, shared: SignalProducer<Response, SluiceError>, joined: Bool), (@Sendable (UInt64) -> Void)?
            )
            in
            if var entry = s.entries[key] {
                entry.members += 1
                let tell = entry.told ? nil : entry.reportToFirst
                entry.told = true
                s.entries[key] = entry
                return ((entry.id, entry.shared, true), tell)
            }
            let id = s.nextID
            s.nextID += 1
            let entry = Entry(id: id, shared: make(id), reportToFirst: reportToFirst, members: 1)
            s.entries[key] = entry
            return ((id, entry.shared, false), nil)
        }
        tellFirst?(result.id)
        return result
    }

    /// A member left; the last one takes the transfer off the list.
    func leave(_ key: CoalescingKey, id: UInt64) {
        state.withLock { s in
            guard var entry = s.entries[key], entry.id == id else { return }
            entry.members -= 1
            s.entries[key] = entry.members > 0 ? entry : nil
        }
    }

    /// No more requests may join transfer `id`.
    func close(_ key: CoalescingKey, id: UInt64) {
        state.withLock { s in
            if s.entries[key]?.id == id { s.entries[key] = nil }
        }
    }
}
