import FoundationEssentials
import Synchronization

/// One step of a transfer, as a transport reports it.
///
/// A transfer sends `head` once, then any number of `body` chunks and progress events, then
/// `completed` (with the metrics) followed by the stream's completion; or it fails.
public enum TransferEvent: Sendable {
    /// The status line and headers of the final response.
    case head(ResponseHead)
    /// A chunk of the decoded body (not sent for downloads to a file).
    case body(Data)
    /// Bytes of the request body sent so far.
    case uploadProgress(TransferProgress)
    /// Bytes of the response body received so far.
    case downloadProgress(TransferProgress)
    /// The transfer finished; the stream completes next. (Boxed: the metrics are large, and every
    /// event of every transfer would otherwise be copied at their size.)
    indirect case completed(TransferMetrics)
}

/// Told of a transfer's head and progress while the transport collects its response (see
/// `Transport.response(for:control:monitor:)`): `.head`, `.uploadProgress` and `.downloadProgress`
/// events only, on the transport's thread. Keep it short.
public typealias TransferMonitor = @Sendable (TransferEvent) -> Void

/// Moves prepared requests over the network.
///
/// `transfer` returns a cold producer: nothing is sent until it is started, every start sends the
/// request again, and disposing the subscription cancels the transfer. It fails with `SluiceError`.
public protocol Transport: Sendable {
    /// The events of one transfer of `request`.
    func transfer(_ request: PreparedRequest) -> SignalProducer<TransferEvent, SluiceError>

    /// The events of one transfer of `request`, which `control` can suspend and resume (a transport
    /// that cannot pause ignores the control).
    func transfer(_ request: PreparedRequest, control: TransferControl?) -> SignalProducer<TransferEvent, SluiceError>

    /// Performs `request` and collects its response, body included: one value, then completion.
    /// `control` can suspend and resume the transfer; `monitor`, when given, is told of the head
    /// and the progress as they happen (a transport of your own should tell it of the head at
    /// least: the chain learns from it that a server answered, which decides whether a request
    /// that is not idempotent may be sent again).
    ///
    /// The default collects the events of `transfer(_:control:)`; a transport may do it more cheaply.
    func response(for request: PreparedRequest, control: TransferControl?, monitor: TransferMonitor?)
        -> SignalProducer<Response, SluiceError>

    /// An executor that runs tasks on the thread that delivers this transport's responses, if it
    /// has one (nil by default).
    ///
    /// A task that prefers it (`withTaskExecutorPreference(_:operation:)`) awaits responses without
    /// a thread hop: see `CurlTransport.taskExecutor`.
    var taskExecutor: (any TaskExecutor)? { get }
}

extension Transport {
    /// None: a transport has no executor unless it says so.
    public var taskExecutor: (any TaskExecutor)? { nil }
}

extension Transport {
    /// Ignores the control: for transports that cannot pause a transfer.
    public func transfer(_ request: PreparedRequest, control: TransferControl?) -> SignalProducer<
        TransferEvent, SluiceError
    > {
        transfer(request)
    }
}

extension Transport {
    /// Performs `request` and collects its response, body included.
    public func response(for request: PreparedRequest) -> SignalProducer<Response, SluiceError> {
        response(for: request, control: nil, monitor: nil)
    }

    /// Collects the events of `transfer(_:control:)` into the response, telling `monitor` of the
    /// head and progress.
    public func response(for request: PreparedRequest, control: TransferControl?, monitor: TransferMonitor?)
        -> SignalProducer<Response, SluiceError>
    {
        let transfer = self.transfer(request, control: control)
        return SignalProducer { observer, lifetime in
            // One accumulator per start; the body grows in place (no copy per chunk).
            let accumulator = ResponseAccumulator()
            lifetime += transfer.start { event in
                switch event {
                case .value(let transferEvent):
                    switch transferEvent {
                    case .head, .uploadProgress, .downloadProgress: monitor?(transferEvent)
                    case .body, .completed: break
                    }
                    guard let metrics = accumulator.add(transferEvent) else { return }
                    do throws(SluiceError) {
                        observer.send(value: try accumulator.response(for: request.request, metrics: metrics))
                    } catch {
                        observer.send(error: error)
                    }
                case .failed(let error): observer.send(error: error)
                case .completed: observer.sendCompleted()
                case .interrupted: observer.sendInterrupted()
                }
            }
        }
    }

    /// The response of one transfer of `request` as soon as its head arrives, its body streaming
    /// (`ResponseContent.streaming`): the producer sends the response, then ends when the body
    /// ends (failing as it failed); `monitor` is told of the head and progress.
    public func streamingResponse(
        for request: PreparedRequest, control: TransferControl, monitor: TransferMonitor?, bufferLimit: Int = 4 << 20
    ) -> SignalProducer<Response, SluiceError> {
        let transfer = self.transfer(request, control: control)
        return SignalProducer { observer, lifetime in
            let relay = StreamingRelay(
                request: request.request, control: control, monitor: monitor, bufferLimit: bufferLimit,
                downstream: observer)
            lifetime += transfer.start { event in relay.receive(event) }
        }
    }
}

/// The parts of a `Response` gathered from the events of one transfer: a value, kept behind a lock
/// by whoever gathers them (`ResponseAccumulator`, or a client's run of the chain).
struct ResponseParts {
    var head: ResponseHead?
    var body = Data()
    /// Whether putting the response together failed: the stream was ended with that error, and
    /// what the transfer still sends must be dropped.
    var failed = false

    /// Adds an event; returns the metrics once the transfer has completed.
    mutating func add(_ event: TransferEvent) -> TransferMetrics? {
        switch event {
        case .head(let head): self.head = head
        case .body(let chunk):
            // The first chunk is kept as it is: a body delivered whole is never copied.
            if body.isEmpty { body = chunk } else { body.append(chunk) }
        case .completed(let metrics): return metrics
        case .uploadProgress, .downloadProgress: break
        }
        return nil
    }

    /// The response, which takes the body; fails (and marks the parts failed) without a head.
    mutating func response(for request: Request, metrics: TransferMetrics) throws(SluiceError) -> Response {
        let body = self.body
        self.body = Data()
        guard let head else {
            failed = true
            throw SluiceError(.protocolError, "The transfer completed without a response head.")
        }
        let fileURL = request.options.destination.fileURL(status: head.status)
        return Response(
            status: head.status, headers: head.headers, httpVersion: head.httpVersion, body: body,
            fileURL: fileURL, metrics: metrics, request: request)
    }
}

/// Builds a `Response` from the events of one transfer.
final class ResponseAccumulator: Sendable {
    private let parts = Mutex(ResponseParts())

    /// Adds an event; returns the metrics once the transfer has completed.
    func add(_ event: TransferEvent) -> TransferMetrics? {
        parts.withLock { $0.add(event) }
    }

    /// Whether putting the response together failed (see `ResponseParts.failed`).
    var hasFailed: Bool { parts.withLock { $0.failed } }

    /// The response, which takes the body; fails without a head.
    func response(for request: Request, metrics: TransferMetrics) throws(SluiceError) -> Response {
        try parts.withLock { (parts) throws(SluiceError) in try parts.response(for: request, metrics: metrics) }
    }
}
