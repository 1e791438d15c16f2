import FoundationEssentials

extension Client {
    /// The Server-Sent Events of `GET path` (a `text/event-stream` response), parsed as the WHATWG
    /// standard says (see `EventStreamParser`), as a producer that reconnects when the connection
    /// ends or fails, sending `Last-Event-ID` so the server can resume where the stream stopped.
    ///
    ///     client.eventStream("notifications")
    ///         .filter { $0.event == "message" }
    ///         .decode(Notification.self)
    ///         .startWithValues { print($0) }
    ///
    /// Each connection is a request through the client's chain (its interceptors, retries and
    /// redirects), sent with `Accept: text/event-stream` and `Cache-Control: no-cache`. The stream:
    ///
    /// - fails with `.unacceptableStatusCode` for a status other than 200 (204 excepted), and with
    ///   `.unacceptableContentType` for a type other than `text/event-stream`, the body in the
    ///   error, without reconnecting;
    /// - completes when the server answers 204 No Content (the standard's way to say "stop");
    /// - reconnects after the body ends, after a connection lost, a timeout or a refused
    ///   connection, waiting as `reconnection` says (see `EventStreamReconnection`), and fails once
    ///   too many connections failed in a row;
    /// - never ends by itself otherwise: dispose it to stop listening.
    ///
    /// Keep the idle timeout (`RequestOptions.idleTimeout`, 30 s by default) above the server's
    /// keep-alive interval, or each silence costs a reconnection.
    public func eventStream(
        _ path: String, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        reconnection: EventStreamReconnection = .default, modify: RequestModifier? = nil
    ) -> SignalProducer<ServerSentEvent, SluiceError> {
        let request: PreparedRequest
        do throws(SluiceError) {
            var made = try makeRequest(.get, path, parameters: parameters, headers: headers, modify: modify)
            if !made.headers.contains("Accept") { made.headers["Accept"] = "text/event-stream" }
            if !made.headers.contains("Cache-Control") { made.headers["Cache-Control"] = "no-cache" }
            request = try made.prepared()
        } catch {
            return SignalProducer(error: error)
        }
        let client = self
        return SignalProducer { observer, lifetime in
            let run = EventStreamRun(
                client: client, request: request.request, reconnection: reconnection, observer: observer)
            lifetime += run.current
            run.connect()
        }
    }
}

extension SignalProducer where Value == ServerSentEvent, Failure == SluiceError {
    /// Decodes each event's data as JSON into `T`; data that does not decode fails the stream with
    /// `.serializationFailed`. Filter out what is not JSON first (an OpenAI-style `[DONE]`, say).
    public func decode<T: Decodable & Sendable>(
        _ type: T.Type, decoder: JSONDecoder = JSONDecoder()
    ) -> SignalProducer<T, SluiceError> {
        attemptMap { (event) throws(SluiceError) -> T in
            do {
                return try decoder.decode(T.self, from: Data(event.data.utf8))
            } catch {
                let start = String(event.data.prefix(80))
                throw SluiceError(
                    .serializationFailed,
                    "The data of a \(event.event) event could not be decoded as \(T.self) (\(error)): \(start)",
                    underlyingError: error)
            }
        }
    }
}
