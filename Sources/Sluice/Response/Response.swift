import FoundationEssentials

/// An HTTP response: status, headers, body and how the transfer went.
///
/// 4xx and 5xx statuses are responses, not errors, until `validate()` makes them errors.
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
        let body: Data
        let fileURL: URL?
        let metrics: TransferMetrics?
        let request: Request

        init(
            status: Int, headers: HTTPHeaders, httpVersion: HTTPVersion, body: Data, fileURL: URL?,
            metrics: TransferMetrics?, request: Request
        ) {
            self.status = status
            self.headers = headers
            self.httpVersion = httpVersion
            self.body = body
            self.fileURL = fileURL
            self.metrics = metrics
            self.request = request
        }
    }

    private let storage: Storage
    /// The lifecycle reporter of the task that produced it, when somebody watches its events.
    var reporter: TaskReporter?

    /// Whether `other` is a copy of this very response (the same fields, shared), not one made
    /// apart with equal values.
    func isCopy(of other: Response) -> Bool {
        storage === other.storage
    }

    /// The status code, e.g. 200.
    public var status: Int { storage.status }
    /// The header fields of the final response, in order.
    public var headers: HTTPHeaders { storage.headers }
    /// The HTTP version the response used.
    public var httpVersion: HTTPVersion { storage.httpVersion }
    /// The body, when it was collected in memory (empty for file downloads and bodiless responses).
    public var body: Data { storage.body }
    /// The file the body was written to, for downloads to a file.
    public var fileURL: URL? { storage.fileURL }
    /// Timings and sizes of the transfer.
    public var metrics: TransferMetrics? { storage.metrics }
    /// The request that produced this response.
    public var request: Request { storage.request }

    /// Creates a response.
    public init(
        status: Int,
        headers: HTTPHeaders,
        httpVersion: HTTPVersion = .http1_1,
        body: Data = Data(),
        fileURL: URL? = nil,
        metrics: TransferMetrics? = nil,
        request: Request
    ) {
        storage = Storage(
            status: status, headers: headers, httpVersion: httpVersion, body: body, fileURL: fileURL,
            metrics: metrics, request: request)
    }
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
