import FoundationEssentials
import HTTPTypes
import OpenAPIRuntime
import Sluice
import SluiceHTTPTypes

/// Runs an OpenAPI-generated client on a Sluice `Client`: every operation becomes one request
/// through the client's chain (its interceptors, retries, redirects, credentials) to its
/// transport.
///
///     let transport = SluiceClientTransport(client: try Client())
///     let api = APIClient(serverURL: try Servers.Server1.url(), transport: transport)
///     let greeting = try await api.getGreeting(query: .init(name: "Ada")).ok.body.json
///
/// Bodies stream both ways. The request body is sent as the generated code produces it, at most
/// `bufferLimit` bytes ahead of the network; while none are ready, the upload pauses and the
/// transport's other transfers go on. (A body of known length up to 64 KiB is collected first: it
/// is sent with the head, and can be sent again on a retry or a redirect; a streamed body that can
/// be iterated only once cannot.) The response arrives once its first body bytes (or its end)
/// have: its body then streams to the generated code, and the transfer is suspended while the
/// reader falls behind (`ResponseBodyStream`); dropping the body cancels the transfer.
///
/// Errors are the client's `SluiceError`s, which OpenAPIRuntime wraps in its `ClientError`; a
/// request cancelled with its task throws `CancellationError`.
public struct SluiceClientTransport: ClientTransport {
    /// The client that sends the requests.
    public let client: Client
    /// How many bytes may wait between the network and the generated code, each way: the request
    /// body's producer waits beyond it, and the response's transfer is suspended.
    public let bufferLimit: Int

    /// The largest request body of known length that is collected before it is sent.
    static let collectedBodyLimit: Int64 = 64 << 10

    /// A transport over `client`.
    public init(client: Client, bufferLimit: Int = 4 << 20) {
        self.client = client
        self.bufferLimit = bufferLimit
    }

    /// Sends `request` with `body` to `baseURL` and returns the response once it starts.
    public func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let url = try Self.url(of: request, baseURL: baseURL)
        let requestBody = try await requestBody(body)
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

    /// The request body: none, collected when it is small and of known length, streamed otherwise.
    private func requestBody(_ body: HTTPBody?) async throws -> RequestBody {
        guard let body else { return .empty }
        let bufferLimit = self.bufferLimit
        switch body.length {
        case .known(let length) where length <= Self.collectedBodyLimit:
            return .data(try await Data(collecting: body, upTo: Int(length)))
        case .known(let length):
            return .stream(Self.provider(body, length: length, bufferLimit: bufferLimit))
        case .unknown:
            return .stream(Self.provider(body, length: nil, bufferLimit: bufferLimit))
        }
    }

    /// The body's chunks as they come, without blocking the transport (see
    /// `BodyProvider(bytes:length:canRepeat:bufferLimit:)`); sent again on a retry or a redirect
    /// only when the body can be iterated more than once.
    private static func provider(_ body: HTTPBody, length: Int64?, bufferLimit: Int) -> BodyProvider {
        BodyProvider(
            bytes: body.map { Data($0) }, length: length, canRepeat: body.iterationBehavior == .multiple,
            bufferLimit: bufferLimit)
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
