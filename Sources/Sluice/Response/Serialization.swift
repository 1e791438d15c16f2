import FoundationEssentials
import Synchronization

/// Turns a response into a value: each serializer names the content types it accepts and fails
/// with `.serializationFailed` (carrying the response) when the body cannot become its value.
///
/// Write your own by conforming, and use it with `serialize(using:)`.
public protocol ResponseSerializer<Output>: Sendable {
    /// The value a response becomes.
    associatedtype Output: Sendable

    /// The media types accepted, e.g. `application/json`; `*/*` accepts any and `*/*+json` any `+json` type.
    var acceptableContentTypes: [String] { get }

    /// The value of `response`, or a `.serializationFailed` error that explains why there is none.
    func serialize(_ response: Response) throws(SluiceError) -> Output

    /// Whether the work is worth moving off the transport's thread onto `Serialization.queue`
    /// (true by default; a serializer that only hands the body on says false, and saves the hop).
    var runsOnSerializationQueue: Bool { get }
}

extension ResponseSerializer {
    /// True: serializers decode off the transport's thread unless they say otherwise.
    public var runsOnSerializationQueue: Bool { true }
}

/// Shared machinery of the serialization operators.
///
/// Serializers run on `queue`, off the transport's loop thread, so a slow decode never stalls
/// other transfers; events after a serialization operator arrive on that queue.
public enum Serialization {
    /// The serial scheduler every serialization operator decodes on.
    public static let queue = QueueScheduler(qos: .userInitiated, name: "sluice.serialization")

    /// How many bytes of the body an error message quotes.
    static let previewLength = 64

    /// Fails with `.serializationFailed` unless the response's Content-Type, if any, is acceptable.
    package static func checkContentType(_ response: Response, acceptable: [String]) throws(SluiceError) {
        guard let header = response.headers["Content-Type"] else { return }
        // The common case, an ASCII header that is acceptable, without strings; the rest is
        // decided, and a refusal explained, by `MediaType`.
        if ASCIIContentType.accepts(header, anyOf: acceptable) { return }
        guard let media = MediaType(header) else {
            throw failure(response, "malformed content-type: \(header.debugDescription)")
        }
        guard !acceptable.contains(where: media.matches) else { return }
        throw failure(
            response,
            "unacceptable content-type: \(media.essence) (expected \(acceptable.joined(separator: ", ")))")
    }

    /// A `.serializationFailed` error whose message ends with the first bytes of the body.
    package static func failure(
        _ response: Response,
        _ reason: String,
        keyPath: String? = nil,
        underlyingError: (any Error)? = nil
    ) -> SluiceError {
        SluiceError(
            .serializationFailed, "\(reason); \(describeBody(response))", underlyingError: underlyingError,
            response: response, keyPath: keyPath)
    }

    /// `first bytes: …`, or `the body is empty`, for error messages.
    static func describeBody(_ response: Response) -> String {
        let body = response.body
        guard !body.isEmpty else { return "the body is empty (status \(response.status))" }
        return "first bytes: \(preview(body))"
    }

    /// The first bytes of `data` as printable text: control characters escaped, `…` when cut.
    static func preview(_ data: Data, length: Int = previewLength) -> String {
        let head = data.prefix(length)
        var text = ""
        for scalar in String(decoding: head, as: UTF8.self).unicodeScalars {
            switch scalar {
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.properties.generalCategory == .control:
                text += "\\u{\(String(scalar.value, radix: 16))}"
            default: text.unicodeScalars.append(scalar)
            }
        }
        return data.count > length ? text + "…" : text
    }

    /// Whether the response has no body to read: an empty body, or a status or method that carries none.
    package static func hasEmptyBody(_ response: Response) -> Bool {
        response.body.isEmpty || hasBodilessStatusOrMethod(response)
    }

    /// Whether the status (204, 205, 304) or the method (HEAD) means there is no body.
    package static func hasBodilessStatusOrMethod(_ response: Response) -> Bool {
        [204, 205, 304].contains(response.status) || response.request.method == .head
    }

    /// The response's media type, for messages (`no content-type` when absent).
    package static func contentTypeDescription(_ response: Response) -> String {
        response.headers["Content-Type"].flatMap { MediaType($0)?.essence } ?? "no content-type"
    }
}

/// Serialization operators on a request's producer.
extension SignalProducer where Value == Response, Failure == SluiceError {
    /// Turns each response into `serializer`'s value on `Serialization.queue`, off the transport's thread.
    public func serialize<S: ResponseSerializer>(using serializer: S) -> SignalProducer<S.Output, SluiceError> {
        // Observers on the path of the response (the claim, then the serializer, in one observer
        // when there is no hop), and the hop between them only for serializers that do real work:
        // no gate, no inner subscription.
        //
        // The claim happens on delivery, before the hop to the queue: the task's completion event
        // then waits for the serialized value instead of reporting the bare response. A caller who
        // leaves before the serializer ran closes the task as cancelled (after a completion, that
        // does nothing).
        guard serializer.runsOnSerializationQueue else {
            // No hop: the claim and the serializer in one observer. The run of the first start is
            // made here, with the producer, and is the start handler's only capture (no closure
            // context; a request's producer starts once).
            let run = SerializationRun(serializer: serializer, upstream: self)
            return SignalProducer<S.Output, SluiceError>.serial { downstream, lifetime in
                run.start(consume downstream, lifetime, claims: true)
            }
        }
        let claiming = lift { (downstream: Observer<Response, SluiceError>, lifetime) in
            Observer { event in
                if case .value(let response) = event { Self.claim(response, lifetime) }
                downstream.send(event)
            }
        }
        let run = SerializationRun(serializer: serializer, upstream: claiming.observe(on: Serialization.queue))
        return SignalProducer<S.Output, SluiceError>.serial { downstream, lifetime in
            run.start(consume downstream, lifetime, claims: false)
        }
    }

    /// Claims the task's completion for the serialized value (see `serialize(using:)`).
    fileprivate static func claim(_ response: Response, _ lifetime: Lifetime) {
        guard let observer = response.outcomeObserver else { return }
        observer.claimOutcome()
        lifetime.observeEnded { observer.abandon() }
    }

    /// The body's bytes, whatever the content type.
    public func data() -> SignalProducer<Data, SluiceError> {
        serialize(using: DataResponseSerializer())
    }
}

/// Delivers the body's bytes as they are.
public struct DataResponseSerializer: ResponseSerializer {
    /// Any content type.
    public static let acceptableContentTypes = ["*/*"]

    /// Any content type.
    public var acceptableContentTypes: [String] { Self.acceptableContentTypes }

    /// Creates the serializer.
    public init() {}

    /// The body.
    public func serialize(_ response: Response) throws(SluiceError) -> Data { response.body }

    /// False: handing the body on is cheaper than a hop to another thread.
    public var runsOnSerializationQueue: Bool { false }
}

/// One start of a serialization operator: serializes each response, and once serializing failed,
/// lets nothing else through.
///
/// Made with the producer, for its first start; a later start makes a fresh one, so that no start
/// inherits another's state. It lets go of its downstream observer with the terminal event, so
/// that a producer kept after its start keeps nothing of that subscription.
final class SerializationRun<S: ResponseSerializer>: Sendable {
    private let serializer: S
    private let upstream: SignalProducer<Response, SluiceError>
    /// Whether a start has taken this run.
    private let isTaken = Atomic<Bool>(false)
    // `downstream` and `claimLifetime` are written by the start that takes the run, before the
    // upstream starts, and then only by `receive`, which events reach one at a time after that
    // start (hence `nonisolated(unsafe)`, and no exclusivity checks).
    /// Where outputs go until the terminal event or a failed serialization; nil after, so that
    /// nothing else goes through.
    @exclusivity(unchecked) private nonisolated(unsafe) var downstream: Observer<S.Output, SluiceError>?
    /// Where a response's task completion is claimed, when this run claims it (see
    /// `serialize(using:)`); nil when an observer before a hop claimed it already.
    @exclusivity(unchecked) private nonisolated(unsafe) var claimLifetime: Lifetime?

    init(serializer: S, upstream: SignalProducer<Response, SluiceError>) {
        self.serializer = serializer
        self.upstream = upstream
    }

    /// Starts the upstream for one start (this run for the first, a fresh one for any later);
    /// `claims`: whether this run claims each response's task completion in the start's lifetime.
    /// `downstream` is handed over (`consuming`) and kept without a retain; the first start runs
    /// on `self` as it is, not on a reference to it picked between two (one retain and release).
    func start(_ downstream: consuming Observer<S.Output, SluiceError>, _ lifetime: Lifetime, claims: Bool) {
        if isTaken.exchange(true, ordering: .acquiringAndReleasing) {
            SerializationRun(serializer: serializer, upstream: upstream).run(
                consume downstream, lifetime, claims: claims)
        } else {
            run(consume downstream, lifetime, claims: claims)
        }
    }

    /// Starts the upstream with this run between it and `downstream`.
    private func run(_ downstream: consuming Observer<S.Output, SluiceError>, _ lifetime: Lifetime, claims: Bool) {
        self.downstream = consume downstream
        claimLifetime = claims ? lifetime : nil
        upstream.run(into: Observer { [self] event in receive(event) }, lifetime)
    }

    /// Serializes a response event, or passes a terminal event on unless serializing failed.
    private func receive(_ event: Event<Response, SluiceError>) {
        guard let downstream else { return }
        switch event {
        case .value(let response):
            if let claimLifetime { SignalProducer.claim(response, claimLifetime) }
            do throws(SluiceError) {
                let output = try serializer.serialize(response)
                response.outcomeObserver?.settle(response, value: output, error: nil)
                // Moved into the event, not copied into it (a body's bytes: a retain and a release).
                downstream.send(.value(consume output))
            } catch {
                response.outcomeObserver?.settle(response, value: nil, error: error)
                release()
                downstream.send(error: error)
            }
        case .failed(let error):
            release()
            downstream.send(error: error)
        case .completed:
            release()
            downstream.sendCompleted()
        case .interrupted:
            release()
            downstream.sendInterrupted()
        }
    }

    /// Lets go of the subscription's observer and lifetime (its terminal event has arrived).
    private func release() {
        downstream = nil
        claimLifetime = nil
    }
}
