import FoundationEssentials
import Synchronization

/// One subscription to an event stream: its connections one after another, the parser state they
/// share (the last event ID, the server's retry time), and the waits between them.
final class EventStreamRun: Sendable {
    private struct State {
        var parser = EventStreamParser()
        /// Connections that failed in a row (no response, or a network error).
        var failures = 0
        /// The server answered 204: no reconnection.
        var stopped = false
    }

    private let client: Client
    private let request: Request
    private let reconnection: EventStreamReconnection
    private let observer: Observer<ServerSentEvent, SluiceError>
    private let state = Mutex(State())
    /// The connection in flight, or the wait before the next one.
    let current = SerialDisposable()

    /// Failures a new connection may mend; any other fails the stream.
    private static let transient: Set<SluiceError.Code> = [
        .connectionLost, .timedOut, .cannotConnect, .dnsFailure, .transportFailure,
    ]

    init(
        client: Client, request: Request, reconnection: EventStreamReconnection,
        observer: Observer<ServerSentEvent, SluiceError>
    ) {
        self.client = client
        self.request = request
        self.reconnection = reconnection
        self.observer = observer
    }

    /// Opens a connection, with `Last-Event-ID` once the stream has one.
    func connect() {
        var request = self.request
        if let id = state.withLock({ $0.parser.lastEventID }) { request.headers["Last-Event-ID"] = id }
        let prepared: PreparedRequest
        do throws(SluiceError) {
            prepared = try request.prepared()
        } catch {
            return observer.send(error: error)
        }
        guard let slot = current.freshSlot() else { return }
        let body = ResponseStream(request: prepared, client: client).response(bufferLimit: 1 << 20, control: nil)
            .flatMap(.concat) { [self] response in accept(response) }
        slot.inner = body.start { [self] event in
            switch event {
            case .value(let chunk): deliver(chunk)
            case .completed: connectionEnded(nil)
            case .failed(let error): connectionEnded(error)
            case .interrupted: break
            }
        }
    }

    /// The body of an event stream; 204 ends the stream, another status or type fails it.
    private func accept(_ response: Response) -> SignalProducer<Data, SluiceError> {
        if response.status == 204 {
            response.discardBody()
            state.withLock { $0.stopped = true }
            return .empty
        }
        let type = response.headers["Content-Type"].flatMap { Serialization.MediaType($0) }
        let isEventStream = type.map { $0.type == "text" && $0.subtype == "event-stream" } ?? false
        guard response.status == 200, isEventStream else {
            return response.collected().attemptMap { (whole) throws(SluiceError) -> Data in
                throw Self.refusal(of: whole)
            }
        }
        state.withLock { $0.failures = 0 }
        return response.bodyChunks
    }

    private static func refusal(of response: Response) -> SluiceError {
        if response.status != 200 {
            return SluiceError(
                .unacceptableStatusCode,
                "An event stream must answer 200, not \(response.status), for "
                    + ValidationMessage.context(of: response),
                response: response)
        }
        return SluiceError(
            .unacceptableContentType,
            "An event stream must be text/event-stream, not \(response.headers["Content-Type"] ?? "untyped"), for "
                + ValidationMessage.context(of: response),
            response: response)
    }

    private func deliver(_ chunk: Data) {
        let parsed = state.withLock { s -> Result<[ServerSentEvent], SluiceError> in
            do throws(SluiceError) {
                return .success(try s.parser.parse(chunk))
            } catch {
                return .failure(error)
            }
        }
        switch parsed {
        case .success(let events):
            for event in events { observer.send(value: event) }
        case .failure(let error):
            current.dispose()
            observer.send(error: error)
        }
    }

    /// Connects again after a wait, unless the stream must end here.
    private func connectionEnded(_ error: SluiceError?) {
        let (stopped, failures, retry) = state.withLock { s -> (Bool, Int, Duration?) in
            if error != nil { s.failures += 1 }
            return (s.stopped, s.failures, s.parser.retry)
        }
        if stopped { return observer.sendCompleted() }
        if let error, !Self.transient.contains(error.code) { return observer.send(error: error) }
        guard reconnection.isEnabled else {
            if let error { return observer.send(error: error) }
            return observer.sendCompleted()
        }
        if let error, let limit = reconnection.maximumFailures, failures >= limit {
            return observer.send(error: error)
        }
        let wait = reconnection.wait(serverRetry: retry, failures: failures)
        guard let slot = current.freshSlot() else { return }
        slot.inner = client.configuration.scheduler.schedule(after: wait) { [self] in connect() }
    }
}
