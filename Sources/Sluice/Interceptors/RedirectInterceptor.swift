import Foundation
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
    public func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<TransferEvent, SluiceError> {
        guard policy.maxHops > 0 || policy.handler != nil else { return chain.proceed(request) }
        let policy = self.policy
        return SignalProducer { observer, lifetime in
            let run = RedirectRun(policy: policy, chain: chain, observer: observer)
            lifetime += run.current
            run.send(request)
        }
    }
}

extension Interceptor where Self == RedirectInterceptor {
    /// Follows redirects as `policy` says.
    public static func redirects(_ policy: RedirectPolicy = .default) -> RedirectInterceptor {
        RedirectInterceptor(policy)
    }
}

/// One start of a request whose redirects are followed: the hops, one at a time.
final class RedirectRun: Sendable {
    private struct State {
        var hops = 0
        var visited: Set<String> = []
        var request: Request?
        /// The current hop answered with a redirect to follow: its events are dropped, and this
        /// request is sent once the hop ends.
        var pending: (next: Request, hop: RedirectHop)?
    }

    private let policy: RedirectPolicy
    private let chain: InterceptorChain
    private let observer: Observer<TransferEvent, SluiceError>
    private let state = Mutex(State())
    /// The running hop.
    let current = SerialDisposable()

    init(policy: RedirectPolicy, chain: InterceptorChain, observer: Observer<TransferEvent, SluiceError>) {
        self.policy = policy
        self.chain = chain
        self.observer = observer
    }

    func send(_ request: Request) {
        state.withLock { s in
            s.request = request
            s.pending = nil
        }
        guard let hop = current.freshSlot() else { return }  // the caller left meanwhile
        hop.inner = chain.proceed(request).start { [self] event in handle(event) }
    }

    private static func key(_ request: Request) -> String {
        "\(request.method.rawValue) \(request.url.absoluteString)"
    }

    private func handle(_ event: Event<TransferEvent, SluiceError>) {
        switch event {
        case .value(.head(let head)):
            do throws(SluiceError) {
                if let (next, hop) = try follow(head) {
                    state.withLock { $0.pending = (next, hop) }
                    return
                }
            } catch {
                observer.send(error: error)
                current.inner = nil
                return
            }
            observer.send(value: .head(head))
        case .value(let other):
            if state.withLock({ $0.pending == nil }) { observer.send(value: other) }
        case .completed, .failed:
            if let pending = state.withLock({ $0.pending }) {
                // The redirect's own body ended (or broke off); it was dropped either way.
                chain.report(.redirected(pending.hop))
                send(pending.next)
            } else if case .failed(let error) = event {
                observer.send(error: error)
            } else {
                observer.sendCompleted()
            }
        case .interrupted:
            observer.sendInterrupted()
        }
    }

    /// The request to send after `head`, or nil to deliver `head` as the response.
    private func follow(_ head: ResponseHead) throws(SluiceError) -> (Request, RedirectHop)? {
        let (request, hops) = state.withLock { ($0.request!, $0.hops) }
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
