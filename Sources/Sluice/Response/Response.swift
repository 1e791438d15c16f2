import Foundation

/// An HTTP response: status, headers, body and how the transfer went.
///
/// 4xx and 5xx statuses are responses, not errors, until `validate()` makes them errors.
public struct Response: Sendable {
    /// The status code, e.g. 200.
    public let status: Int
    /// The header fields of the final response, in order.
    public let headers: HTTPHeaders
    /// The HTTP version the response used.
    public let httpVersion: HTTPVersion
    /// The body, when it was collected in memory (empty for file downloads and bodiless responses).
    public let body: Data
    /// The file the body was written to, for downloads to a file.
    public let fileURL: URL?
    /// Timings and sizes of the transfer.
    public let metrics: TransferMetrics?
    /// The request that produced this response.
    public let request: Request
    /// The lifecycle reporter of the task that produced it, when somebody watches its events.
    var reporter: TaskReporter?

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
        self.status = status
        self.headers = headers
        self.httpVersion = httpVersion
        self.body = body
        self.fileURL = fileURL
        self.metrics = metrics
        self.request = request
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
