import FoundationEssentials
import Synchronization

/// What one start of a request shares along its chain: the request as the user made it, the
/// transport at the end, where lifecycle events go, and the request last handed to the transport
/// (after redirects, the one the final response answers).
final class Exchange: Sendable {
    /// How the transport step moves the bytes.
    enum Delivery: Sendable {
        /// Collect the body in the transport and deliver it as one chunk: the cheap path, for
        /// callers that want the whole response and no progress.
        case buffered
        /// Like `buffered`, for a chain whose every interceptor passes the transport's events on
        /// unchanged or drops an attempt whole (`ResponsePreservingInterceptor`): the transport's
        /// response goes to the client's run as it is (`takeCollectedResponse()`), and the chain
        /// sees only its head and completion. The cheapest path: the body is not sent as an event,
        /// and the response is not put together again from the events.
        case handedOver
        /// Deliver chunks and progress as they happen; `control` can suspend the transfer.
        case streaming(TransferControl?)
    }

    let originalRequest: Request
    let transport: any Transport
    let scheduler: any DateScheduler
    let delivery: Delivery
    let reporter: TaskReporter?
    private let lastSent = Mutex<Request?>(nil)
    private let responded = Atomic<Bool>(false)
    /// The transport's last response, for `handedOver` delivery, until the client's run takes it.
    private let collected = Mutex<Response?>(nil)

    init(
        request: Request, transport: any Transport, scheduler: any DateScheduler, delivery: Delivery,
        reporter: TaskReporter?
    ) {
        originalRequest = request
        self.transport = transport
        self.scheduler = scheduler
        self.delivery = delivery
        self.reporter = reporter
    }

    /// The request most recently handed to the transport.
    var lastSentRequest: Request? { lastSent.withLock { $0 } }

    /// Whether any response head arrived in this exchange (on any attempt or hop): after one, a
    /// request may have been processed by a server, so it is not safe to send it again blindly.
    var hasReceivedResponse: Bool { responded.load(ordering: .relaxed) }

    /// Takes the transport's response whose head and completion the chain passed on last (`handedOver`
    /// delivery only; nil otherwise).
    func takeCollectedResponse() -> Response? {
        collected.withLock { response in
            defer { response = nil }
            return response
        }
    }

    /// Whether anybody observes lifecycle events (so callers can skip building them).
    var isReporting: Bool { reporter != nil }

    /// Sends a lifecycle event to the observers, if there are any.
    func report(_ kind: TaskEvent.Kind) {
        reporter?.report(kind)
    }

    /// Records `request` as the one handed to the transport, for a hop sent without `transfer(_:)`
    /// (see `DirectRun`).
    func noteSent(_ request: Request) {
        lastSent.withLock { $0 = request }
    }

    /// Sends the transport's collected response on as the events of a transfer: its head, the
    /// whole body as one chunk (or, when `handsOver`, the response itself for the client's run to
    /// take), the metrics.
    func relay(
        _ response: Response, to request: Request, handsOver: Bool, downstream: Observer<TransferEvent, SluiceError>
    ) {
        responded.store(true, ordering: .relaxed)
        // Handed over only as the client's run would put it together from the events: the request
        // sent, metrics, the file of a download. A transport of a user's may answer with other
        // values (a cache's recorded request, no metrics); that response goes the general way.
        let handsOver = handsOver && Self.isWhole(response, for: request)
        // Kept before the head goes on, so that it is there whatever the head sets off.
        if handsOver { collected.withLock { $0 = response } }
        downstream.send(
            value: .head(
                ResponseHead(status: response.status, headers: response.headers, httpVersion: response.httpVersion)))
        if !handsOver && !response.body.isEmpty { downstream.send(value: .body(response.body)) }
        downstream.send(value: .completed(response.metrics ?? TransferMetrics()))
        // The chain passes a completion on within this call, so the client's run has taken the
        // response by now; one still here was dropped (a redirect followed, a retried status, a
        // replayed 401) and is let go at once rather than kept with its body until the next hop.
        if handsOver { collected.withLock { $0 = nil } }
    }

    /// Whether `response` has what the client's run would give it: `request` (the very value the
    /// transport was handed), metrics, and the file URL of a download to a file.
    static func isWhole(_ response: Response, for request: Request) -> Bool {
        guard response.request.isCopy(of: request), response.metrics != nil else { return false }
        if case .file(let url) = request.options.destination { return response.fileURL == url }
        return response.fileURL == nil
    }

    /// The end of the chain: validates `request` and hands it to the transport.
    func transfer(_ request: Request) -> SignalProducer<TransferEvent, SluiceError> {
        let prepared: PreparedRequest
        do throws(SluiceError) {
            prepared = try request.prepared()
        } catch {
            return SignalProducer(error: error)
        }
        switch delivery {
        case .streaming(let control):
            let reporter = self.reporter
            // Every attempt's and every hop's head and progress, as the transport sees them.
            return transport.transfer(prepared, control: control).lift { [self] downstream, _ in
                lastSent.withLock { $0 = request }
                return Observer { [self] event in
                    switch event {
                    case .value(.head(let head)):
                        responded.store(true, ordering: .relaxed)
                        reporter?.report(.responseReceived(head))
                    case .value(.uploadProgress(let progress)): reporter?.report(.uploadProgress(progress))
                    case .value(.downloadProgress(let progress)): reporter?.report(.downloadProgress(progress))
                    default: break
                    }
                    downstream.send(event)
                }
            }
        case .buffered, .handedOver:
            // The transport's collected response, as the events of a transfer: its head, the whole
            // body as one chunk (or, handed over, the response itself), the metrics.
            let handsOver: Bool
            if case .handedOver = delivery { handsOver = true } else { handsOver = false }
            // The transport's producer runs inside this one's subscription (one closure, where
            // `lift` makes two).
            let response = transport.response(for: prepared)
            return SignalProducer.serial { [self] downstream, lifetime in
                lastSent.withLock { $0 = request }
                let observer = Observer<Response, SluiceError> { [self] event in
                    switch event {
                    case .value(let value): relay(value, to: request, handsOver: handsOver, downstream: downstream)
                    case .failed(let error): downstream.send(error: error)
                    case .completed: downstream.sendCompleted()
                    case .interrupted: downstream.sendInterrupted()
                    }
                }
                response.run(into: observer, lifetime)
            }
        }
    }
}
