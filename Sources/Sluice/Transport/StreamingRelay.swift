import FoundationEssentials
import Synchronization

/// Turns one transfer's events into a response whose body streams: the response goes downstream
/// when the head arrives, the chunks into its `ResponseChunks`, and the producer ends when the
/// body does (see `Transport.streamingResponse(for:control:monitor:bufferLimit:)`).
final class StreamingRelay: Sendable {
    private let request: Request
    private let monitor: TransferMonitor?
    private let downstream: Observer<Response, SluiceError>
    private let chunks: ResponseChunks
    private let headSent = Atomic(false)

    init(
        request: Request, control: TransferControl, monitor: TransferMonitor?, bufferLimit: Int,
        downstream: Observer<Response, SluiceError>
    ) {
        self.request = request
        self.monitor = monitor
        self.downstream = downstream
        chunks = ResponseChunks(control: control, bufferLimit: bufferLimit)
    }

    func receive(_ event: Event<TransferEvent, SluiceError>) {
        switch event {
        case .value(.head(let head)):
            monitor?(.head(head))
            headSent.store(true, ordering: .relaxed)
            let fileURL = request.options.destination.fileURL(status: head.status)
            downstream.send(
                value: Response(head: head, content: .streaming(chunks), fileURL: fileURL, request: request))
        case .value(.body(let chunk)):
            chunks.append(chunk)
        case .value(let progress):
            if case .completed(let metrics) = progress {
                chunks.finish(metrics: metrics)
            } else {
                monitor?(progress)
            }
        case .failed(let error):
            chunks.fail(error)
            downstream.send(error: error)
        case .completed:
            if !headSent.load(ordering: .relaxed) {
                downstream.send(error: SluiceError(.protocolError, "The transfer completed without a response head."))
            } else {
                downstream.sendCompleted()
            }
        case .interrupted:
            chunks.fail(SluiceError(.cancelled, "The transfer was cancelled."))
            downstream.sendInterrupted()
        }
    }
}
