import FoundationEssentials
import Synchronization

/// One start of a request on a client with a `DirectRoute`: its first hop sent as the chain would
/// send it (the default headers added, validated, collected by the transport), without the chain's
/// objects. No exchange, no redirect run, no interceptor's producer and no run putting the response
/// together: the transport's response goes to the caller as it is. (A GET makes 24 Swift objects
/// this way where the chain made 32, and its response is not relayed through three observers.)
///
/// A response the chain would act on, a redirect to follow, or one the transport did not give
/// whole (see `Exchange.isWhole`), is handed to the chain's objects, made then as they would have
/// been made at the start: the redirect interceptor's observer of the first hop, which follows the
/// redirect through the rest of the chain, and the client's run of the response
/// (`ChainResponseRun`). What the caller receives is what the chain sends.
final class DirectRun: Sendable {
    /// The request as the user made it, and as the first hop sends it.
    private let request: Request
    private let hop: Request
    private let client: Client
    private let route: DirectRoute
    private let downstream: Observer<Response, SluiceError>
    private let lifetime: Lifetime
    /// The chain's observer of the first hop, once the hop was handed to the chain: the transport's
    /// terminal event goes there.
    private let chain = Mutex<Observer<TransferEvent, SluiceError>?>(nil)

    private init(
        request: Request, hop: Request, client: Client, route: DirectRoute,
        downstream: Observer<Response, SluiceError>, lifetime: Lifetime
    ) {
        self.request = request
        self.hop = hop
        self.client = client
        self.route = route
        self.downstream = downstream
        self.lifetime = lifetime
    }

    /// Sends `request` on `client`'s direct route within the subscription of `downstream`.
    static func start(
        _ request: Request, on route: DirectRoute, of client: Client, into downstream: Observer<Response, SluiceError>,
        _ lifetime: Lifetime
    ) {
        let hop = route.defaults.applied(onOriginalOrigin: request)
        let prepared: PreparedRequest
        do throws(SluiceError) {
            prepared = try hop.prepared()
        } catch {
            // As the chain ends a request that cannot be sent (see `ChainResponseRun`).
            client.metricsAggregator.record(url: request.url, response: nil)
            downstream.send(error: error)
            return
        }
        let run = DirectRun(
            request: request, hop: hop, client: client, route: route, downstream: downstream, lifetime: lifetime)
        client.transport.response(for: prepared).run(into: Observer { [run] event in run.receive(event) }, lifetime)
    }

    private func receive(_ event: Event<Response, SluiceError>) {
        if case .value(let response) = event {
            if needsChain(response) {
                handToChain(response)
            } else {
                client.metricsAggregator.record(url: response.request.url, response: response)
                downstream.send(value: response)
            }
            return
        }
        if let chain = chain.withLock({ $0 }) {
            switch event {
            case .failed(let error): chain.send(error: error)
            case .completed: chain.sendCompleted()
            case .interrupted: chain.sendInterrupted()
            case .value: break  // handled above
            }
            return
        }
        switch event {
        case .failed(let error):
            client.metricsAggregator.record(url: hop.url, response: nil)
            downstream.send(error: error)
        case .completed: downstream.sendCompleted()
        case .interrupted: downstream.sendInterrupted()
        case .value: break  // handled above
        }
    }

    /// Whether the chain would do anything but pass `response` on.
    private func needsChain(_ response: Response) -> Bool {
        route.redirects.followsAny && RedirectRules.isFollowed(status: response.status)
            || !Exchange.isWhole(response, for: hop)
    }

    /// Makes the chain's objects as the client's run would have made them (`Client.send`, handed-over
    /// delivery), past the first hop's own interceptors, and sends them the first hop's response.
    private func handToChain(_ response: Response) {
        let exchange = Exchange(
            request: request, transport: client.transport, scheduler: client.configuration.scheduler,
            delivery: .handedOver, reporter: nil)
        exchange.noteSent(hop)
        let run = ChainResponseRun(
            request: request, exchange: exchange, reporter: nil, aggregator: client.metricsAggregator,
            downstream: downstream)
        let rest = InterceptorChain(
            interceptors: client.interceptors, index: DirectRoute.redirectsIndex + 1, exchange: exchange)
        let firstHop = route.redirects.observer(
            ofFirstHopOf: request, chain: rest, downstream: run.observer, lifetime)
        chain.withLock { $0 = firstHop }
        exchange.relay(response, to: hop, handsOver: true, downstream: firstHop)
    }
}
