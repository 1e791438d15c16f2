import FoundationEssentials

/// An HTTP response: status, headers, body and how the transfer went.
///
/// 4xx and 5xx statuses are responses, not errors, until `validate()` makes them errors.
///
/// The body is either bytes already collected (`content` is `.collected`, and `body` holds them)
/// or a stream of chunks still arriving (`content` is `.streaming`), as OkHttp's responses are: an
/// interceptor that does not touch the body pays nothing for it, and one that does can read the
/// chunks as they come or collect them (`collected()`). Responses that reach a request's
/// producer (`Client.send`) are always collected; only `Client.stream` hands out streaming ones.
///
/// A response is immutable, and its fields live in one shared box: the value that travels through
/// a pipeline's operators is two words wide, so passing it on never copies the request, the
/// metrics and the headers.
public struct Response: Sendable {
    /// The fields, shared by every copy.
    private final class Storage: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let httpVersion: HTTPVersion
        let content: ResponseContent
        let fileURL: URL?
        let metrics: TransferMetrics?
        let request: Request
        let source: ResponseSource

        init(
            status: Int, headers: HTTPHeaders, httpVersion: HTTPVersion, content: ResponseContent, fileURL: URL?,
            metrics: TransferMetrics?, request: Request, source: ResponseSource
        ) {
            self.status = status
            self.headers = headers
            self.httpVersion = httpVersion
            self.content = content
            self.fileURL = fileURL
            self.metrics = metrics
            self.request = request
            self.source = source
        }
    }

    private let storage: Storage
    /// Where validation and serialization say how the pipeline ended, when the request's task is
    /// watched (see `ResponseOutcomeObserver`).
    var outcomeObserver: (any ResponseOutcomeObserver)?

    /// Whether `other` is a copy of this very response (the same fields, shared), not one made
    /// apart with equal values.
    func isCopy(of other: Response) -> Bool {
        storage === other.storage
    }

    /// The status code, e.g. 200.
    public var status: Int { storage.status }
    /// The header fields of the final response, in order.
    public var headers: HTTPHeaders {
        _read { yield storage.headers }
    }
    /// The HTTP version the response used.
    public var httpVersion: HTTPVersion { storage.httpVersion }
    /// The status line and headers.
    public var head: ResponseHead { ResponseHead(status: status, headers: headers, httpVersion: httpVersion) }
    /// The body as it is held: collected bytes, or chunks still arriving.
    public var content: ResponseContent {
        _read { yield storage.content }
    }
    /// The body, when it was collected in memory (empty for file downloads, bodiless responses and
    /// bodies still streaming: see `content`).
    public var body: Data {
        if case .collected(let data) = storage.content { return data }
        return Data()
    }
    /// The file the body was written to, for downloads to a file.
    public var fileURL: URL? {
        _read { yield storage.fileURL }
    }
    /// Timings and sizes of the transfer (nil while a streaming body is still arriving: its
    /// stream's `metrics` has them at the end).
    public var metrics: TransferMetrics? {
        _read { yield storage.metrics }
    }
    /// The request that produced this response (after redirects, the one the final hop sent).
    public var request: Request {
        _read { yield storage.request }
    }
    /// Where the response came from: the network, or a cache (`HTTPCache`), directly or after
    /// validating it with the server.
    public var source: ResponseSource { storage.source }

    /// Creates a response whose body is collected.
    public init(
        status: Int,
        headers: HTTPHeaders,
        httpVersion: HTTPVersion = .http1_1,
        body: Data = Data(),
        fileURL: URL? = nil,
        metrics: TransferMetrics? = nil,
        request: Request,
        source: ResponseSource = .network
    ) {
        storage = Storage(
            status: status, headers: headers, httpVersion: httpVersion, content: .collected(body), fileURL: fileURL,
            metrics: metrics, request: request, source: source)
    }

    /// Creates a response whose body is `content`, collected or streaming.
    public init(
        head: ResponseHead, content: ResponseContent, fileURL: URL? = nil, metrics: TransferMetrics? = nil,
        request: Request, source: ResponseSource = .network
    ) {
        storage = Storage(
            status: head.status, headers: head.headers, httpVersion: head.httpVersion, content: content,
            fileURL: fileURL, metrics: metrics, request: request, source: source)
    }

    /// The same response with another status line and headers; the body and the rest are kept.
    public func replacingHead(_ head: ResponseHead) -> Response {
        var copy = Response(
            head: head, content: content, fileURL: fileURL, metrics: metrics, request: request, source: source)
        copy.outcomeObserver = outcomeObserver
        return copy
    }

    /// The same response with `body` as its collected body; the head and the rest are kept.
    public func replacingBody(_ body: Data) -> Response {
        var copy = Response(
            head: head, content: .collected(body), fileURL: fileURL, metrics: metrics, request: request, source: source)
        copy.outcomeObserver = outcomeObserver
        return copy
    }

    /// The same response with `content` as its body; the head and the rest are kept.
    func replacingContent(_ content: ResponseContent) -> Response {
        var copy = Response(
            head: head, content: content, fileURL: fileURL, metrics: metrics, request: request, source: source)
        copy.outcomeObserver = outcomeObserver
        return copy
    }

    /// Lets go of the body: a streaming body is drained without buffering and without holding the
    /// transfer back (an interceptor that drops a response, such as a redirect it follows, calls
    /// this). Nothing to do for a collected body.
    public func discardBody() {
        if case .streaming(let stream) = content { stream.discard() }
    }

    /// This response with its body collected: itself when it already is; otherwise a producer that
    /// reads the stream to its end and sends the response with the bytes and the final metrics,
    /// or fails as the stream failed.
    public func collected() -> SignalProducer<Response, SluiceError> {
        guard case .streaming(let stream) = content else { return SignalProducer(value: self) }
        let response = self
        return SignalProducer { observer, lifetime in
            let gathered = Lock(Data())
            lifetime += stream.chunks.start { event in
                switch event {
                case .value(let chunk): gathered.withLock { $0.append(chunk) }
                case .failed(let error): observer.send(error: error)
                case .interrupted: observer.sendInterrupted()
                case .completed:
                    var whole = Response(
                        head: response.head, content: .collected(gathered.withLock { $0 }), fileURL: response.fileURL,
                        metrics: stream.metrics ?? response.metrics, request: response.request,
                        source: response.source)
                    whole.outcomeObserver = response.outcomeObserver
                    observer.send(value: whole)
                    observer.sendCompleted()
                }
            }
        }
    }
}

/// How a response's body is held.
public enum ResponseContent: Sendable {
    /// Every byte, in memory (empty for a download to a file or a bodiless response).
    case collected(Data)
    /// Chunks still arriving, read once (see `ResponseChunks`).
    case streaming(ResponseChunks)
}

/// Told how the operators after a request ended for its response: validation and serialization
/// report their outcome here, so that a watched task completes with the serialized value or the
/// validation error. The client's run of a request implements it (only when somebody watches);
/// the response layer knows nothing of task events.
protocol ResponseOutcomeObserver: AnyObject, Sendable {
    /// A serializer will settle the outcome (the response alone does not complete it).
    func claimOutcome()
    /// The pipeline ended: with the serialized value, or with `error`.
    func settle(_ response: Response, value: (any Sendable)?, error: SluiceError?)
    /// The pipeline was disposed before it settled.
    func abandon()
}

/// The status line and headers of a response, known before its body arrives.
public struct ResponseHead: Sendable, Equatable {
    /// The status code.
    public let status: Int
    /// The header fields, in order.
    public let headers: HTTPHeaders
    /// The HTTP version.
    public let httpVersion: HTTPVersion

    /// Creates a response head.
    public init(status: Int, headers: HTTPHeaders, httpVersion: HTTPVersion) {
        self.status = status
        self.headers = headers
        self.httpVersion = httpVersion
    }

    /// The body length the server announced, if any.
    public var expectedContentLength: Int64? { headers["Content-Length"].flatMap { Int64($0) } }
}

/// An HTTP protocol version.
public enum HTTPVersion: String, Sendable, Equatable {
    /// HTTP/1.0
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case http1_0 = "HTTP/1.0"
    /// HTTP/1.1
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case http1_1 = "HTTP/1.1"
    /// HTTP/2
    case http2 = "HTTP/2"
    /// HTTP/3
    case http3 = "HTTP/3"
}
