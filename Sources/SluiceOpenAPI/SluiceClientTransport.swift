import FoundationEssentials
import HTTPTypes
import OpenAPIRuntime
import Sluice
import SluiceHTTPTypes

/// Runs an OpenAPI-generated client on a Sluice `Client`: every operation becomes one request
/// through the client's chain (its interceptors, retries, redirects, credentials) to its
/// transport.
///
///     let transport = SluiceClientTransport(client: Client())
///     let api = APIClient(serverURL: try Servers.Server1.url(), transport: transport)
///     let greeting = try await api.getGreeting(query: .init(name: "Ada")).ok.body.json
///
/// The response arrives once its first body bytes (or its end) have: its body is then streamed
/// to the generated code as it arrives, and the transfer is suspended while the reader falls
/// behind (`ResponseBodyStream`); dropping the body cancels the transfer. The request body is
/// collected first, up to `maximumRequestBodySize` (libcurl reads request bodies on its own thread,
/// which cannot wait for an asynchronous sequence).
///
/// Errors are the client's `SluiceError`s, which OpenAPIRuntime wraps in its `ClientError`; a
/// request cancelled with its task throws `CancellationError`.
public struct SluiceClientTransport: ClientTransport {
    /// The client that sends the requests.
    public let client: Client
    /// The largest request body sent, in bytes: a larger one fails with `.invalidBody`, and
    /// nothing is sent.
    public let maximumRequestBodySize: Int
    /// How many response bytes may wait for the reader before the transfer is suspended.
    public let bufferLimit: Int

    /// A transport over `client`.
    public init(client: Client, maximumRequestBodySize: Int = 64 << 20, bufferLimit: Int = 4 << 20) {
        self.client = client
        self.maximumRequestBodySize = maximumRequestBodySize
        self.bufferLimit = bufferLimit
    }

    /// Sends `request` with `body` to `baseURL` and returns the response once it starts.
    public func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let url = try Self.url(of: request, baseURL: baseURL)
        let requestBody = try await collect(body)
        let stream = try client.stream(
            HTTPMethod(rawValue: request.method.rawValue), url.absoluteString,
            headers: HTTPHeaders(request.headerFields),
            modify: { $0.body = requestBody })
        var chunks = stream.values(bufferLimit: bufferLimit).makeAsyncIterator()
        let first: Data?
        do {
            first = try await chunks.next()
        } catch {
            throw Self.error(for: error)
        }
        try Task.checkCancellation()
        guard let head = chunks.head else {
            throw SluiceError(.protocolError, "The transfer of operation \(operationID) ended without a response head.")
        }
        let response = try HTTPResponse(head)
        guard request.method != .head else { return (response, nil) }
        let length = Self.length(of: head)
        return (
            response,
            HTTPBody(ResponseBodyChunks(first: first, rest: chunks), length: length, iterationBehavior: .single)
        )
    }

    /// What a call throws for `error`: `CancellationError` when its task was cancelled, as Swift
    /// concurrency's callers expect; the client's error otherwise.
    static func error(for error: SluiceError) -> any Error {
        error.code == .cancelled && Task.isCancelled ? CancellationError() : error
    }

    /// The base URL joined with the request's path and query, which the generated code has
    /// percent-encoded already.
    static func url(of request: HTTPRequest, baseURL: URL) throws(SluiceError) -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let path = request.path ?? ""
        let text = base + (path.isEmpty || path.hasPrefix("/") ? path : "/" + path)
        guard let url = URL(string: text) else {
            throw SluiceError(.invalidURL, "\(text.debugDescription) is not a URL.")
        }
        return url
    }

    /// The body's bytes, collected: none for no body.
    private func collect(_ body: HTTPBody?) async throws -> RequestBody {
        guard let body else { return .empty }
        if case .known(let length) = body.length, length > Int64(maximumRequestBodySize) {
            throw tooLarge(length)
        }
        var data = Data()
        for try await chunk in body {
            guard data.count + chunk.count <= maximumRequestBodySize else {
                throw tooLarge(Int64(data.count + chunk.count))
            }
            data.append(contentsOf: chunk)
        }
        return .data(data)
    }

    private func tooLarge(_ length: Int64) -> SluiceError {
        SluiceError(
            .invalidBody,
            "The request body has \(length) bytes or more, over the transport's limit of \(maximumRequestBodySize).")
    }

    /// The body's length as the head announces it: unknown when it is encoded (libcurl hands on
    /// the decoded bytes) or not given.
    private static func length(of head: ResponseHead) -> HTTPBody.Length {
        guard !head.headers.contains("Content-Encoding"), let length = head.expectedContentLength else {
            return .unknown
        }
        return .known(length)
    }
}
