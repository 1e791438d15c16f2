import Foundation
import Sluice
import Synchronization

extension SluiceError.Code {
    /// A `ReplayTransport` has no recorded exchange (left) for the request.
    public static let noRecordedExchange = SluiceError.Code("noRecordedExchange")
}

/// Answers requests from a `Recording`, without a network: each request gets the response
/// recorded for the same method, URL (redacted as it was recorded) and body, in the order they
/// were recorded; one it has no recording for fails with `.noRecordedExchange`, naming it and
/// what is left.
///
///     let client = Client(baseURL: "https://api.example.com",
///                         transport: try ReplayTransport(contentsOf: fixtureURL))
///
/// Each recorded exchange answers once: a test that sends a request twice needs it recorded
/// twice (as a retry or a poll records it), and `unplayed` lists those it never asked for.
public final class ReplayTransport: Transport {
    /// What is redacted from the URLs matched, as it was when they were recorded.
    public let redaction: Redaction
    private let remaining: Lock<[RecordedExchange]>

    /// Replays `recording`.
    public init(_ recording: Recording, redaction: Redaction = .default) {
        self.redaction = redaction
        remaining = Lock(recording.exchanges)
    }

    /// Replays the recording in the file at `url`.
    public convenience init(contentsOf url: URL, redaction: Redaction = .default) throws(SluiceError) {
        self.init(try Recording(contentsOf: url), redaction: redaction)
    }

    /// The recorded exchanges no request has played yet.
    public var unplayed: [RecordedExchange] { remaining.withLock { $0 } }

    /// Plays back the exchange recorded for `request`, or fails with `.noRecordedExchange`.
    public func transfer(_ request: PreparedRequest) -> SignalProducer<TransferEvent, SluiceError> {
        SignalProducer { [self] observer, _ in
            let exchange: RecordedExchange
            do throws(SluiceError) {
                exchange = try take(request.request)
            } catch {
                observer.send(error: error)
                return
            }
            let body = Data(base64Encoded: exchange.responseBody) ?? Data()
            observer.send(
                value: .head(
                    ResponseHead(
                        status: exchange.status, headers: HTTPHeaders(pairs: exchange.responseHeaders),
                        httpVersion: .http1_1)))
            if !body.isEmpty { observer.send(value: .body(body)) }
            var metrics = TransferMetrics()
            metrics.bytesReceived = Int64(body.count)
            metrics.bytesSent = Int64(Data(base64Encoded: exchange.requestBody)?.count ?? 0)
            observer.send(value: .completed(metrics))
            observer.sendCompleted()
        }
    }

    /// Takes the first exchange left that matches `request`.
    private func take(_ request: Request) throws(SluiceError) -> RecordedExchange {
        let body = try request.body.bytes()
        let key = MatchKey(
            method: request.method.rawValue, url: redaction.url(request.url), body: body.base64EncodedString())
        let found = remaining.withLock { remaining -> RecordedExchange? in
            guard let index = remaining.firstIndex(where: { $0.key == key }) else { return nil }
            return remaining.remove(at: index)
        }
        if let found { return found }
        throw SluiceError(.noRecordedExchange, Self.missMessage(key, bodyCount: body.count, left: unplayed))
    }

    private static func missMessage(_ key: MatchKey, bodyCount: Int, left: [RecordedExchange]) -> String {
        var message = "No recorded exchange for \(key.method) \(key.url) with a body of \(bodyCount) bytes."
        if left.isEmpty {
            message += " Every recorded exchange has been played."
        } else {
            let listed = left.prefix(5).map { exchange in
                let count = Data(base64Encoded: exchange.requestBody)?.count ?? 0
                let sameTarget = exchange.method == key.method && exchange.url == key.url
                return "\(exchange.method) \(exchange.url) (\(count) bytes\(sameTarget ? ", another body" : ""))"
            }
            message += " Left: " + listed.joined(separator: "; ") + (left.count > 5 ? "; …" : "") + "."
        }
        return message + " Record the exchange again with a RecordingTransport."
    }
}
