import Foundation
import Sluice
import Synchronization

/// Sends through another transport and records each exchange (request, response, bodies kept,
/// secrets redacted) for a `ReplayTransport` to play back in tests: Ruby's VCR, Python's vcrpy.
///
///     let recorder = RecordingTransport(wrapping: CurlTransport())
///     let client = Client(baseURL: "https://api.example.com", transport: recorder)
///     _ = try await client.get("users").value
///     try recorder.recording.write(to: fixtureURL)   // commit it with the tests
///
/// Transfers that fail are not recorded: a replay answers only what a server answered.
public final class RecordingTransport: Transport {
    /// The transport that sends.
    public let inner: any Transport
    /// What is redacted from URLs and headers.
    public let redaction: Redaction
    private let exchanges = Lock<[RecordedExchange]>([])

    /// A recorder that sends through `transport`.
    public init(wrapping transport: any Transport, redaction: Redaction = .default) {
        inner = transport
        self.redaction = redaction
    }

    /// The exchanges recorded so far, in the order they ended.
    public var recording: Recording { Recording(exchanges: exchanges.withLock { $0 }) }

    /// The inner transport's executor.
    public var taskExecutor: (any TaskExecutor)? { inner.taskExecutor }

    /// A transfer through the inner transport, recorded when it completes.
    public func transfer(_ request: PreparedRequest) -> SignalProducer<TransferEvent, SluiceError> {
        transfer(request, control: nil)
    }

    /// A transfer through the inner transport, recorded when it completes.
    public func transfer(_ request: PreparedRequest, control: TransferControl?) -> SignalProducer<
        TransferEvent, SluiceError
    > {
        SignalProducer { [self] observer, lifetime in
            let parts = Lock<(head: ResponseHead?, body: Data)>((nil, Data()))
            lifetime += inner.transfer(request, control: control).start { [self] event in
                if case .value(let transferEvent) = event {
                    switch transferEvent {
                    case .head(let head): parts.withLock { $0.head = head }
                    case .body(let chunk): parts.withLock { $0.body.append(chunk) }
                    case .completed:
                        let (head, body) = parts.withLock { ($0.head, $0.body) }
                        if let head { record(request.request, head: head, body: body) }
                    case .uploadProgress, .downloadProgress: break
                    }
                }
                observer.send(event)
            }
        }
    }

    /// The inner transport's collected response, recorded.
    public func response(for request: PreparedRequest, control: TransferControl?, monitor: TransferMonitor?)
        -> SignalProducer<Response, SluiceError>
    {
        inner.response(for: request, control: control, monitor: monitor).on(value: { [self] response in
            record(request.request, head: response.head, body: response.body)
        })
    }

    private func record(_ request: Request, head: ResponseHead, body: Data) {
        // A body that cannot be read again is recorded empty: the replay then matches it as one.
        let requestBody = (try? request.body.bytes()) ?? Data()
        let exchange = RecordedExchange(
            method: request.method.rawValue, url: redaction.url(request.url),
            requestHeaders: redaction.headers(request.headers).pairs, requestBody: requestBody.base64EncodedString(),
            status: head.status, responseHeaders: redaction.headers(head.headers).pairs,
            responseBody: body.base64EncodedString())
        exchanges.withLock { $0.append(exchange) }
    }
}
