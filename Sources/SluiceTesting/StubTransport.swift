import Foundation
import Sluice
import Synchronization

/// A transport that answers without a network, for testing the layers above the transport
/// (interceptors, validation, serialization) and users' own code.
///
/// Each transfer asks the handler for a reply and plays it back as transfer events. Every request
/// is recorded. Use `MockServer` with `CurlTransport` to test real HTTP instead.
public final class StubTransport: Transport {
    /// What a stubbed transfer does.
    public enum Reply: Sendable {
        /// Answers with a response; the body arrives in chunks of at most `chunkSize` bytes.
        case response(status: Int, headers: HTTPHeaders = [:], body: Data = Data(), chunkSize: Int = 16 * 1024)
        /// Fails with an error.
        case failure(SluiceError)
        /// Never answers (until the subscriber disposes).
        case never
    }

    private let handler: @Sendable (Request) -> Reply
    private let recorded = Mutex<[Request]>([])

    /// Creates a stub that asks `handler` for the reply to each request.
    public init(_ handler: @escaping @Sendable (Request) -> Reply) {
        self.handler = handler
    }

    /// Creates a stub that answers every request the same way.
    public convenience init(reply: Reply) {
        self.init { _ in reply }
    }

    /// The requests received so far, in order.
    public var requests: [Request] { recorded.withLock { $0 } }

    /// Plays back the handler's reply for `request`.
    public func transfer(_ request: PreparedRequest) -> SignalProducer<TransferEvent, SluiceError> {
        SignalProducer { [self] observer, lifetime in
            recorded.withLock { $0.append(request.request) }
            switch handler(request.request) {
            case .response(let status, let headers, let body, let chunkSize):
                observer.send(value: .head(ResponseHead(status: status, headers: headers, httpVersion: .http1_1)))
                var offset = 0
                while offset < body.count, !lifetime.hasEnded {
                    let end = min(body.count, offset + max(1, chunkSize))
                    observer.send(value: .body(body.subdata(in: offset..<end)))
                    observer.send(
                        value: .downloadProgress(TransferProgress(completed: Int64(end), expected: Int64(body.count))))
                    offset = end
                }
                var metrics = TransferMetrics()
                metrics.bytesReceived = Int64(body.count)
                observer.send(value: .completed(metrics))
                observer.sendCompleted()
            case .failure(let error):
                observer.send(error: error)
            case .never:
                break
            }
        }
    }
}
