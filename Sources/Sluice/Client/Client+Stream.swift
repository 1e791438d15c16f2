import FoundationEssentials

/// A response body delivered as it arrives, in three forms: a producer of chunks, an async
/// sequence with backpressure, and the head followed by such a sequence (`open()`).
///
/// 4xx and 5xx bodies stream like any other until the stream is validated: `validate()` checks the
/// head before any chunk is delivered, and a rejected response fails the stream with its body
/// collected into the error (`error.response`), not handed out as chunks.
///
///     let (head, body) = try await client.stream("exports/2026.csv").validate().open()
///     print(head.status, head.headers["Content-Type"] ?? "")
///     for try await chunk in body { consume(chunk) }
public struct ResponseStream: Sendable {
    /// The request, validated.
    public let request: PreparedRequest
    let client: Client
    /// The checks of the head that the response must pass before its body streams.
    let validations: [@Sendable (Response) throws(SluiceError) -> Void]

    init(request: PreparedRequest, client: Client, validations: [@Sendable (Response) throws(SluiceError) -> Void] = [])
    {
        self.request = request
        self.client = client
        self.validations = validations
    }

    /// The body's chunks as a cold producer; observers run on the transport's thread, so keep them
    /// short or move work elsewhere with `observe(on:)`. 4xx and 5xx bodies are delivered too,
    /// unless the stream is validated. The request goes through the client's interceptors, like
    /// every other.
    public var producer: SignalProducer<Data, SluiceError> {
        response(bufferLimit: Int.max, control: nil).flatMap(.concat) { response in response.bodyChunks }
    }

    /// The response as soon as its head arrives, its body streaming (`ResponseContent.streaming`);
    /// the producer ends when the body does. The request goes through the client's interceptors.
    public func response(bufferLimit: Int = 4 << 20) -> SignalProducer<Response, SluiceError> {
        response(bufferLimit: bufferLimit, control: nil)
    }

    func response(bufferLimit: Int, control: TransferControl?) -> SignalProducer<Response, SluiceError> {
        let client = self.client
        let request = self.request.request
        let unchecked = SignalProducer<Response, SluiceError>.serial { observer, lifetime in
            let reporter = client.eventHub.reporter(for: request)
            lifetime += client.inFlight.register(method: request.method, url: request.url, lifetime: lifetime)
            client.response(
                for: request, mode: .streaming(bufferLimit: bufferLimit), control: control, reporter: reporter
            ).run(into: consume observer, lifetime)
        }
        return validations.isEmpty ? unchecked : unchecked.flatMap(.concat, checkingHead)
    }

    /// The body's chunks as an `AsyncSequence`: when the consumer falls behind, the transfer is
    /// suspended instead of buffering (see `ResponseBodyStream`).
    public var values: ResponseBodyStream { values(bufferLimit: 4 << 20) }

    /// The same, with a chosen buffer limit in bytes.
    public func values(bufferLimit: Int) -> ResponseBodyStream {
        let stream = self
        return ResponseBodyStream(
            response: { control in stream.response(bufferLimit: bufferLimit, control: control) },
            bufferLimit: bufferLimit)
    }
}

extension Response {
    /// The body's chunks: a streaming body's as they arrive, a collected one's as one chunk (none
    /// when it is empty).
    public var bodyChunks: SignalProducer<Data, SluiceError> {
        switch content {
        case .streaming(let stream): return stream.chunks
        case .collected(let data): return data.isEmpty ? .empty : SignalProducer(value: data)
        }
    }
}

extension Client {
    /// Streams the body of `method path` (see `ResponseStream`); fails with `SluiceError` if the
    /// request is invalid, before anything is sent.
    public func stream(
        _ method: HTTPMethod, _ path: String, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        modify: RequestModifier? = nil
    ) throws(SluiceError) -> ResponseStream {
        let request = try makeRequest(method, path, parameters: parameters, headers: headers, modify: modify)
            .prepared()
        return ResponseStream(request: request, client: self)
    }

    /// Streams the body of `GET path` (see `ResponseStream`).
    public func stream(
        _ path: String, parameters: Parameters? = nil, headers: HTTPHeaders = [:], modify: RequestModifier? = nil
    ) throws(SluiceError) -> ResponseStream {
        try stream(.get, path, parameters: parameters, headers: headers, modify: modify)
    }
}
