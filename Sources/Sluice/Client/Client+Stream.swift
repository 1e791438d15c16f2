import FoundationEssentials

/// A response body delivered as it arrives, in two forms: a producer of chunks, and an async
/// sequence with backpressure.
public struct ResponseStream: Sendable {
    /// The request, validated.
    public let request: PreparedRequest
    let client: Client

    /// The body's chunks as a cold producer; observers run on the transport's thread, so keep them
    /// short or move work elsewhere with `observe(on:)`. 4xx and 5xx bodies are delivered too.
    /// The request goes through the client's interceptors, like every other.
    public var producer: SignalProducer<Data, SluiceError> {
        client.events(for: request.request, control: nil).compactMap { event in
            if case .body(let chunk) = event { return chunk }
            return nil
        }
    }

    /// The body's chunks as an `AsyncSequence`: when the consumer falls behind, the transfer is
    /// suspended instead of buffering (see `ResponseBodyStream`).
    public var values: ResponseBodyStream { values(bufferLimit: 4 << 20) }

    /// The same, with a chosen buffer limit in bytes.
    public func values(bufferLimit: Int) -> ResponseBodyStream {
        let client = self.client
        let request = self.request.request
        return ResponseBodyStream(
            transfer: { control in client.events(for: request, control: control) }, bufferLimit: bufferLimit)
    }
}

extension Client {
    /// Streams the body of `method path` (see `ResponseStream`); fails with `SluiceError` if the
    /// request is invalid, before anything is sent.
    public func stream(
        _ method: HTTPMethod, _ path: String, parameters: Parameters? = nil, headers: HTTPHeaders = [:]
    ) throws(SluiceError) -> ResponseStream {
        let request = try makeRequest(method, path, parameters: parameters, headers: headers).prepared()
        return ResponseStream(request: request, client: self)
    }

    /// Streams the body of `GET path` (see `ResponseStream`).
    public func stream(
        _ path: String, parameters: Parameters? = nil, headers: HTTPHeaders = [:]
    ) throws(SluiceError) -> ResponseStream {
        try stream(.get, path, parameters: parameters, headers: headers)
    }
}
