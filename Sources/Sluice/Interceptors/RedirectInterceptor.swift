import FoundationEssentials
import Synchronization

/// Follows redirects itself (libcurl's following is off), so that each hop is reported as a
/// `TaskEvent.Kind.redirected` event, secrets are removed on a change of origin, and targets that
/// are not http or https are refused. See `RedirectPolicy` for the rules.
///
/// The body of a followed redirect is read and dropped; the caller sees only the final response.
public struct RedirectInterceptor: Interceptor {
    /// Which redirects to follow, and how.
    public let policy: RedirectPolicy

    /// Creates the interceptor.
    public init(_ policy: RedirectPolicy = .default) {
        self.policy = policy
    }

    /// Sends `request`, then the requests its redirects lead to.
    public func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        guard followsAny else { return chain.proceed(request) }
        // The first hop's response passes through an observer (no gate, no inner subscription:
        // most requests are never redirected); a redirect's next hop is started from that observer
        // once the redirect's own transfer has ended, and its response reaches the same observer.
        // (`run(into:)` rather than `lift`: no derived producer. The first hop is proceeded with
        // once, here, as `lift` did: a restart runs the same producer again.) The run for the
        // producer's start is made here too, holding what the closure would capture, so that the
        // closure captures it alone and needs no context of its own; a further start (an
        // interceptor above that retries) gets a fresh run.
        let run = RedirectRun(policy: policy, chain: chain, request: request, firstHop: chain.proceed(request))
        return SignalProducer.serial { downstream, lifetime in
            run.startForThisStart(into: consume downstream, lifetime)
        }
    }

    /// Whether the policy follows any redirect at all; one that follows none passes every response on.
    var followsAny: Bool { policy.maxHops > 0 || policy.handler != nil }
}

extension Interceptor where Self == RedirectInterceptor {
    /// Follows redirects as `policy` says.
    public static func redirects(_ policy: RedirectPolicy = .default) -> RedirectInterceptor {
        RedirectInterceptor(policy)
    }
}

/// One start of a request whose redirects are followed: the hops, one at a time.
///
/// Hops never overlap: the next one starts inside the delivery of the previous one's terminal
/// event, so the events reaching `downstream` stay serial, and each hop's subscription joins the
/// start's lifetime, whose end cancels the hop in flight. A followed redirect's body is discarded.
final class RedirectRun: Sendable {
    private struct State {
        var hops = 0
        var visited: Set<String> = []
        /// The request of the hop in flight.
        var request: Request
        var pending: (next: Request, hop: RedirectHop)?
        /// Set once a terminal event went downstream: anything after it is dropped.
        var isFinished = false
    }

    private let policy: RedirectPolicy
    private let chain: InterceptorChain
    /// The request as the interceptor received it, and the producer of its first hop.
    private let request: Request
    private let firstHop: SignalProducer<Response, SluiceError>
    /// Whether a start has taken this run (see `forThisStart()`).
    private let isTaken = Atomic(false)
    // Set once, by the start that takes the run, before the first hop starts; read only when the
    // hops' events arrive, which the transport orders after that start (its command queue's lock).
    nonisolated(unsafe) private var downstream: Observer<Response, SluiceError>!
    nonisolated(unsafe) private var lifetime: Lifetime!
    private let state: Mutex<State>

    init(
        policy: RedirectPolicy, chain: InterceptorChain, request: Request,
        firstHop: SignalProducer<Response, SluiceError>
    ) {
        self.policy = policy
        self.chain = chain
        self.request = request
        self.firstHop = firstHop
        state = Mutex(State(request: request))
    }

    /// Starts the first hop within a start's subscription: on this run for the producer's first
    /// start, on a fresh one for any later start, so that no start inherits another's hops. (The
    /// first start runs on `self` as it is, not on a reference to it picked between two: one
    /// retain and release less.) `downstream` is handed over (`consuming`): kept without a retain.
    func startForThisStart(into downstream: consuming Observer<Response, SluiceError>, _ lifetime: Lifetime) {
        if isTaken.exchange(true, ordering: .acquiringAndReleasing) {
            RedirectRun(policy: policy, chain: chain, request: request, firstHop: firstHop)
                .start(into: consume downstream, lifetime)
        } else {
            start(into: consume downstream, lifetime)
        }
    }

    /// Starts the first hop within a start's subscription.
    private func start(into downstream: consuming Observer<Response, SluiceError>, _ lifetime: Lifetime) {
        self.downstream = consume downstream
        self.lifetime = lifetime
        firstHop.run(into: observer, lifetime)
    }

    /// The observer of every hop's events.
    var observer: Observer<Response, SluiceError> {
        Observer { [self] event in handle(event) }
    }

    /// Starts the next hop, unless the caller has left.
    private func startHop(_ request: Request) {
        state.withLock { s in
            s.request = request
            s.pending = nil
        }
        // The caller left during the hand-off: the previous hop's gate has delivered its terminal
        // event already and cannot interrupt, so the interruption is this run's to send.
        if lifetime.hasEnded {
            finish(.interrupted)
            return
        }
        // Added after the start: a hop that ends at once has delivered everything by then, and
        // a lifetime that ended meanwhile disposes the hop as it is added.
        lifetime += chain.proceed(request).start(observer)
    }

    private static func key(_ request: Request) -> String {
        "\(request.method.rawValue) \(request.url.absoluteString)"
    }

    private func handle(_ event: Event<Response, SluiceError>) {
        if state.withLock({ $0.isFinished }) { return }
        switch event {
        case .value(let response):
            do throws(SluiceError) {
                // The status first: a response that is not a redirect (most) is passed on without
                // its head built or the hop's request copied out of the state for the rules.
                if RedirectRules.isFollowed(status: response.status), let (next, hop) = try follow(response.head) {
                    response.discardBody()
                    state.withLock { $0.pending = (next, hop) }
                    return
                }
            } catch {
                // The redirect's transfer is cancelled when the failure ends the subscription.
                response.discardBody()
                finish(.failed(error))
                return
            }
            // The event as it arrived: no copy of the response into a new one.
            downstream.send(event)
        case .completed, .failed:
            if let pending = state.withLock({ $0.pending }) {
                // The redirect's own body ended (or broke off); it was dropped either way. A caller
                // who has left is not told of the redirect.
                if !lifetime.hasEnded { chain.report(.redirected(pending.hop)) }
                startHop(pending.next)
            } else {
                finish(event)
            }
        case .interrupted:
            finish(event)
        }
    }

    /// Sends a terminal event downstream, once.
    private func finish(_ event: Event<Response, SluiceError>) {
        let first = state.withLock { s -> Bool in
            defer { s.isFinished = true }
            return !s.isFinished
        }
        if first { downstream.send(event) }
    }

    private func follow(_ head: ResponseHead) throws(SluiceError) -> (Request, RedirectHop)? {
        let (request, hops) = state.withLock { ($0.request, $0.hops) }
        guard var next = try RedirectRules.nextRequest(after: request, head: head, policy: policy) else { return nil }
        if let handler = policy.handler {
            let redirect = Redirect(request: request, response: head, next: next, hop: hops + 1)
            switch handler(redirect) {
            case .follow(let changed):
                // The handler's request is sent as it is, headers included, but never to a scheme
                // or a downgrade the rules refuse.
                try RedirectRules.checkTarget(changed.url, from: request.url, policy: policy)
                next = changed
            case .stop: return nil
            case .fail(let error): throw error
            }
        }
        if hops >= policy.maxHops {
            throw SluiceError(
                .redirectFailed,
                "Too many redirects: \(chain.originalRequest.url.absoluteString) was redirected more than \(policy.maxHops) times."
            )
        }
        // The visited set is only built once a redirect happens: most requests never need it.
        let looped = state.withLock { s -> Bool in
            s.hops += 1
            if s.visited.isEmpty { s.visited.insert(Self.key(request)) }
            return !s.visited.insert(Self.key(next)).inserted
        }
        if looped {
            throw SluiceError(
                .redirectFailed,
                "Redirect loop: \(request.url.absoluteString) redirects back to \(next.url.absoluteString), which was already visited."
            )
        }
        return (next, RedirectHop(from: request.url, to: next.url, status: head.status, method: next.method))
    }
}
