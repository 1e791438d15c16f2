import FoundationEssentials
import Synchronization

/// One start of a request: what it shares along its chain (the request as the user made it, the
/// transport at the end, how the body is wanted, where lifecycle events go, the request last
/// handed to the transport) and the client's end of the chain, which hands the response to the
/// caller (see `Exchange+Delivery.swift`), and its entry among the client's requests in flight.
/// One object per start, for all three.
final class Exchange: Disposable {
    /// How the caller wants the body of the response at the end of the chain.
    enum BodyMode: Sendable {
        /// Collected by the transport: the response arrives whole, as one value (`send`, tasks).
        case collected
        /// Streaming: the response arrives with its head, its body as chunks (`stream`).
        case streaming(bufferLimit: Int)
    }

    let originalRequest: Request
    /// The client that sends the request: its transport, scheduler, metrics and requests in flight
    /// (one reference for the four, retained and released once per start).
    let client: Client
    let mode: BodyMode
    /// Suspends and resumes the transfer in flight (a task's, a stream's), if any.
    let control: TransferControl?
    /// Whether the start lists the request among the client's requests in flight.
    private let isListed: Bool

    // Set once, by the start that takes this exchange (`start`), before the chain runs; read when
    // the chain's events arrive, which the transport orders after that start (its command queue's
    // lock), as `RedirectRun` does.
    /// Where lifecycle events go, when somebody watches.
    nonisolated(unsafe) private(set) var reporter: TaskReporter?
    /// The subscription the response goes to.
    nonisolated(unsafe) private(set) var lifetime: Lifetime!
    /// The request's entry among the client's requests in flight, when it is listed.
    nonisolated(unsafe) private var inFlightID: UInt64 = 0

    private let lastSent = Mutex<Request?>(nil)
    private let responded = Atomic<Bool>(false)
    /// The response whose streaming body is still arriving: collected for a caller that wants it
    /// whole, or handed out already to one that streams it (its task ends with the body).
    let open = Mutex<Response?>(nil)
    /// Where the response goes: let go of with the terminal event. The stages below the caller
    /// (a validation's, a serializer's run) hold the producer that holds this exchange, so an
    /// exchange that kept its observer would keep them, and itself, alive for good. Behind a lock:
    /// a collected body's value may be on its way while a disposal ends the exchange.
    let downstream = Mutex<Observer<Response, SluiceError>?>(nil)
    /// A terminal event went downstream: what the chain sends after it is dropped.
    let ended = Atomic(false)
    private let disposed = Atomic(false)
    /// Whether a start has taken this exchange (see `forThisStart()`).
    private let isTaken = Atomic(false)

    /// An exchange for one start of `request`; `listed` puts the request among the client's
    /// requests in flight for the subscription's life (callers that list it themselves, as tasks
    /// do, pass false).
    init(request: Request, client: Client, mode: BodyMode, control: TransferControl?, listed: Bool) {
        originalRequest = request
        self.client = client
        self.mode = mode
        self.control = control
        isListed = listed
    }

    /// Runs the request through the client's chain within a subscription, as `start` does: on this
    /// exchange for the producer's first start, on a fresh one for any later start, so that no
    /// start inherits another's state. (Made with the producer, it is the start handler's only
    /// capture: no closure context, and no exchange to make when the producer starts once. The
    /// first start runs on `self` as it is, not on a reference to it picked between two: one
    /// retain and release less.) Its task's events go to a reporter from the client's hub.
    func startForThisStart(into downstream: consuming Observer<Response, SluiceError>, _ lifetime: Lifetime) {
        if isTaken.exchange(true, ordering: .acquiringAndReleasing) {
            let fresh = Exchange(
                request: originalRequest, client: client, mode: mode, control: control, listed: isListed)
            fresh.start(
                reporter: client.eventHub.reporter(for: originalRequest), into: consume downstream, lifetime)
        } else {
            start(reporter: client.eventHub.reporter(for: originalRequest), into: consume downstream, lifetime)
        }
    }

    /// Runs the request through the client's chain within a subscription: the chain's response
    /// goes to `downstream` through this exchange, which reports the task's events to `reporter`.
    /// `downstream` is handed over (`consuming`): moved into its slot, with no retain.
    func start(
        reporter: TaskReporter?, into downstream: consuming Observer<Response, SluiceError>, _ lifetime: Lifetime
    ) {
        self.reporter = reporter
        var handed: Observer<Response, SluiceError>? = consume downstream
        self.downstream.withLock { $0 = handed.take() }
        self.lifetime = lifetime
        // Listed before anything else happens (its task's first events, the interceptors):
        // cancelling through the client ends the subscription as disposing it would.
        if isListed {
            inFlightID = client.inFlight.add(
                method: originalRequest.method, url: originalRequest.url, lifetime: lifetime)
            lifetime += self
        }
        // After the exchange has listed the request among those in flight: an observer of these
        // events may cancel it through the client.
        reporter?.report(.created)
        reporter?.report(.resumed)
        let response = InterceptorChain(exchange: self, index: 0).proceed(originalRequest)
        if let deadline = originalRequest.options.deadline {
            response.timeout(after: deadline, on: scheduler).run(into: observer, lifetime)
        } else {
            response.run(into: observer, lifetime)
        }
    }

    /// The transport at the end of the chain.
    var transport: any Transport { client.transport }
    /// The scheduler that retries and deadlines wait on.
    var scheduler: any DateScheduler { client.configuration.scheduler }
    /// The client's metrics.
    var aggregator: MetricsAggregator { client.metricsAggregator }

    /// Whether the subscription has ended and the request left the client's list.
    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    /// Takes the request off the client's list of requests in flight (its subscription ended).
    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if isListed { client.inFlight.remove(inFlightID) }
    }

    /// Told of every transfer's head and progress: notes that a response arrived, and reports both
    /// to the task's observers when somebody watches. (A closure that captures only the exchange
    /// needs no allocation of its own.)
    private var monitor: TransferMonitor {
        { [self] event in
            // Nobody watching (the common case): only the head matters, and it is not copied out
            // of the event (its headers, two retains and two releases).
            guard let reporter else {
                if case .head = event { responded.store(true, ordering: .relaxed) }
                return
            }
            switch event {
            case .head(let head):
                responded.store(true, ordering: .relaxed)
                reporter.report(.responseReceived(head))
            case .uploadProgress(let progress): reporter.report(.uploadProgress(progress))
            case .downloadProgress(let progress): reporter.report(.downloadProgress(progress))
            case .body, .completed: break
            }
        }
    }

    /// The request most recently handed to the transport.
    var lastSentRequest: Request? { lastSent.withLock { $0 } }

    /// Whether any response arrived in this exchange (on any attempt or hop): after one, a request
    /// may have been processed by a server, so it is not safe to send it again blindly.
    var hasReceivedResponse: Bool { responded.load(ordering: .relaxed) }

    /// Sends a lifecycle event to the observers, if there are any.
    func report(_ kind: TaskEvent.Kind) {
        reporter?.report(kind)
    }

    /// The end of the chain: validates `request` and hands it to the transport, which answers with
    /// a collected or a streaming response as the caller wants it.
    func transfer(_ request: Request) -> SignalProducer<Response, SluiceError> {
        let prepared: PreparedRequest
        do throws(SluiceError) {
            prepared = try request.prepared()
        } catch {
            return SignalProducer(error: error)
        }
        // Noted when the transfer is made, which is when an interceptor proceeds with it: every
        // interceptor of Sluice's starts what it proceeds with at once.
        lastSent.withLock { $0 = request }
        switch mode {
        case .collected:
            return transport.response(for: prepared, control: control, monitor: monitor)
        case .streaming(let bufferLimit):
            return transport.streamingResponse(
                for: prepared, control: control ?? TransferControl(), monitor: monitor, bufferLimit: bufferLimit)
        }
    }
}
