import FoundationEssentials
import Synchronization

/// What one start of a request shares along its chain: the request as the user made it, the
/// transport at the end, how the body is wanted, where lifecycle events go, and the request last
/// handed to the transport.
final class Exchange: Sendable {
    /// How the caller wants the body of the response at the end of the chain.
    enum BodyMode: Sendable {
        /// Collected by the transport: the response arrives whole, as one value (`send`, tasks).
        case collected
        /// Streaming: the response arrives with its head, its body as chunks (`stream`).
        case streaming(bufferLimit: Int)
    }

    let originalRequest: Request
    let transport: any Transport
    let scheduler: any DateScheduler
    let mode: BodyMode
    /// Suspends and resumes the transfer in flight (a task's, a stream's), if any.
    let control: TransferControl?
    let reporter: TaskReporter?
    /// Tells the reporter of each head and progress (nil when nobody watches).
    private let monitor: TransferMonitor?
    private let lastSent = Mutex<Request?>(nil)
    private let responded = Atomic<Bool>(false)

    init(
        request: Request, transport: any Transport, scheduler: any DateScheduler, mode: BodyMode,
        control: TransferControl?, reporter: TaskReporter?
    ) {
        originalRequest = request
        self.transport = transport
        self.scheduler = scheduler
        self.mode = mode
        self.control = control
        self.reporter = reporter
        monitor = reporter.map(Self.monitor(reporting:))
    }

    /// A monitor that turns a transfer's head and progress into the task's events.
    private static func monitor(reporting reporter: TaskReporter) -> TransferMonitor {
        { event in
            switch event {
            case .head(let head): reporter.report(.responseReceived(head))
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
        let response: SignalProducer<Response, SluiceError>
        switch mode {
        case .collected:
            response = transport.response(for: prepared, control: control, monitor: monitor)
        case .streaming(let bufferLimit):
            response = transport.streamingResponse(
                for: prepared, control: control ?? TransferControl(), monitor: monitor, bufferLimit: bufferLimit)
        }
        // The transport's producer runs inside this one's subscription (one closure, where `lift`
        // makes two).
        return SignalProducer.serial { [self] downstream, lifetime in
            lastSent.withLock { $0 = request }
            response.run(
                into: Observer { [self] event in
                    if case .value = event { responded.store(true, ordering: .relaxed) }
                    downstream.send(event)
                }, lifetime)
        }
    }
}
