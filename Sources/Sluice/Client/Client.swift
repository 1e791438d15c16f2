import Foundation

/// The entry point: sends requests to a base URL through a transport, and returns each as a cold
/// `SignalProducer<Response, SluiceError>`. Nothing is sent until the producer is started;
/// every start sends the request again; disposing cancels it.
///
///     let client = try Client(baseURL: "https://api.example.com/v1/")
///     let user = try await client.get("users/42").value
///
/// 4xx and 5xx responses are responses, not errors, until `validate()` makes them errors.
public final class Client: Sendable {
    /// How a client builds and sends requests.
    public struct Configuration: Sendable {
        /// Headers added to every request; a request's own headers win over them.
        public var defaultHeaders: HTTPHeaders = DefaultHeaders.all
        /// Transfer settings for every request (timeouts, limits, HTTP version).
        public var requestOptions = RequestOptions()
        /// The methods whose parameters go in the query string; others put them in the body.
        public var queryStringMethods: Set<HTTPMethod> = [.get, .head, .delete]

        /// The default configuration.
        public init() {}
    }

    /// The URL relative paths resolve against, if the client has one.
    public let baseURL: URL?
    /// How this client builds and sends requests.
    public let configuration: Configuration
    /// What moves the bytes.
    public let transport: any Transport
    let resolution: BaseURLResolution?
    let inFlight = InFlightRequests()

    /// Creates a client; fails with `.invalidURL` if `baseURL` is not an absolute http(s) URL.
    public init(
        baseURL: String? = nil,
        configuration: Configuration = Configuration(),
        transport: any Transport = CurlTransport.shared
    ) throws(SluiceError) {
        resolution = try baseURL.map { (text) throws(SluiceError) in try BaseURLResolution(text) }
        self.baseURL = resolution?.baseURL
        self.configuration = configuration
        self.transport = transport
    }

    /// The absolute URL for `path` (see `BaseURLResolution`).
    public func url(for path: String) throws(SluiceError) -> URL {
        if let resolution { return try resolution.resolve(path) }
        guard let url = URL(string: path), url.scheme != nil else {
            throw SluiceError(
                .invalidURL, "\(path.debugDescription) is not an absolute URL, and the client has no base URL.")
        }
        return url
    }

    /// The request `method path` with `parameters` encoded and the default headers applied.
    public func makeRequest(
        _ method: HTTPMethod,
        _ path: String,
        parameters: Parameters? = nil,
        encoding: (any ParameterEncoding)? = nil,
        headers: HTTPHeaders = [:]
    ) throws(SluiceError) -> Request {
        var request = Request(
            method: method, url: try url(for: path), headers: configuration.defaultHeaders.merging(headers),
            options: configuration.requestOptions)
        if let parameters {
            let encoding =
                encoding ?? URLEncoding(destination: .methodDependent, queryMethods: configuration.queryStringMethods)
            request = try encoding.encode(request, with: parameters)
        }
        return request
    }

    /// A cold producer that sends `request` and delivers its response.
    public func send(_ request: Request) -> SignalProducer<Response, SluiceError> {
        let prepared: PreparedRequest
        do throws(SluiceError) {
            prepared = try request.prepared()
        } catch {
            return SignalProducer(error: error)
        }
        let transport = self.transport
        let inFlight = self.inFlight
        return SignalProducer { observer, lifetime in
            // Cancelling through the client interrupts this subscription as disposing it would:
            // the interruption ends the lifetime, which cancels the transfer.
            let id = inFlight.register(method: request.method, url: request.url) { observer.sendInterrupted() }
            lifetime.observeEnded { inFlight.remove(id) }
            lifetime += transport.response(for: prepared).start(observer)
        }
    }

    /// A cold producer for `method path`: parameters are encoded when it is made; an invalid
    /// request fails when started, and nothing is sent.
    public func request(
        _ method: HTTPMethod,
        _ path: String,
        parameters: Parameters? = nil,
        encoding: (any ParameterEncoding)? = nil,
        headers: HTTPHeaders = [:]
    ) -> SignalProducer<Response, SluiceError> {
        do throws(SluiceError) {
            return send(try makeRequest(method, path, parameters: parameters, encoding: encoding, headers: headers))
        } catch {
            return SignalProducer(error: error)
        }
    }
}
