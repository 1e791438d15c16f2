import FoundationEssentials
import Synchronization

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
        /// How parameters are encoded when a call names no `encoding`: by default a `URLEncoding`
        /// that puts them in the query for GET, HEAD and DELETE and in a form body otherwise, with
        /// arrays as `key[]=` and Booleans as `1`/`0`. Set it once for the whole client:
        ///
        ///     configuration.parameterEncoding = URLEncoding(arrayEncoding: .noBrackets, boolEncoding: .literal)
        public var parameterEncoding: any ParameterEncoding = URLEncoding.default
        /// The methods whose parameters go in the query string; others put them in the body. Reads
        /// and writes the `queryMethods` of `parameterEncoding` when it is a `URLEncoding` (setting
        /// it replaces any other encoding with a `URLEncoding` for those methods).
        public var queryStringMethods: Set<HTTPMethod> {
            get { (parameterEncoding as? URLEncoding)?.queryMethods ?? URLEncoding.defaultQueryMethods }
            set {
                var encoding = parameterEncoding as? URLEncoding ?? URLEncoding.default
                encoding.queryMethods = newValue
                parameterEncoding = encoding
            }
        }
        /// Retries of temporary failures for every request, or nil for none (the default, as in
        /// Alamofire: a retry is a decision about the API, so it is asked for).
        public var retryPolicy: RetryPolicy? = nil
        /// Which redirects are followed (up to 10, secrets removed on a change of origin).
        public var redirectPolicy: RedirectPolicy = .default
        /// Credentials sent with every request to the origin it was made for, or nil.
        public var authorization: Authorization? = nil
        /// Whether identical GET and HEAD requests in flight at the same time share one transfer
        /// (see `CoalescingInterceptor`); off by default.
        public var coalescesRequests = false
        /// The jar that stores the cookies servers set and sends them back, on every redirect hop;
        /// nil for none. By default each configuration has a jar of its own, in memory, as a
        /// `URLSession` has cookie storage: a login that sets a session cookie works as it does
        /// in a browser. Set a jar you load and save to keep cookies across runs, or nil for a
        /// client that never stores or sends any (see `RequestOptions.usesCookies` for one request).
        public var cookies: CookieJar? = CookieJar()
        /// Where time-based interceptors (retry backoff) wait; a `TestScheduler` in tests.
        public var scheduler: any DateScheduler = Client.defaultScheduler
        /// The private HTTP cache responses are stored in and answered from, or nil for none (the
        /// default: a client without one has no cache interceptor in its chain).
        public var cache: HTTPCache? = nil

        /// The default configuration.
        public init() {}
    }

    /// The client's cookie jar (`Configuration.cookies`), or nil when it keeps no cookies.
    public var cookies: CookieJar? { configuration.cookies }

    /// The URL relative paths resolve against, if the client has one.
    public let baseURL: URL?
    /// How this client builds and sends requests.
    public let configuration: Configuration
    /// What moves the bytes.
    public let transport: any Transport
    /// The whole chain every request goes through, in order, before the transport: the user's
    /// interceptors, then the built-in ones (see `Client.chain(_:configuration:)`).
    public let interceptors: [any Interceptor]
    let resolution: BaseURLResolution?
    let inFlight: InFlightRequests
    let eventHub: TaskEventHub
    let metricsAggregator: MetricsAggregator
    /// Warns once when a request turns TLS verification off.
    let insecureTLSWarning: InsecureTLSWarning
    /// The path resolved last and its URL: an application tends to request the same path again
    /// (polling, a list endpoint), and parsing the URL is most of what resolving costs.
    private let lastResolved = Mutex<(path: String, url: URL)?>(nil)

    /// Creates a client; fails with `.invalidURL` if `baseURL` is not an absolute http(s) URL.
    ///
    /// `interceptors` run first, in order, then the built-in ones the configuration asks for
    /// (retry, redirects, default headers, credentials); see `Client.chain(_:configuration:)`.
    public convenience init(
        baseURL: String? = nil,
        configuration: Configuration = Configuration(),
        interceptors: [any Interceptor] = [],
        transport: any Transport = CurlTransport.shared
    ) throws(SluiceError) {
        try self.init(
            baseURL: baseURL, configuration: configuration,
            chain: Self.chain(interceptors, configuration: configuration), transport: transport)
    }

    /// Creates a client whose requests go through exactly `chain`, in this order, then the
    /// transport: no built-in interceptor is added, so the caller places or leaves out each one.
    public init(
        baseURL: String? = nil,
        configuration: Configuration = Configuration(),
        chain: [any Interceptor],
        transport: any Transport = CurlTransport.shared
    ) throws(SluiceError) {
        resolution = try baseURL.map { (text) throws(SluiceError) in try BaseURLResolution(text) }
        self.baseURL = resolution?.baseURL
        // The requests `makeRequest` builds carry the jar from the start: `send` then finds it
        // there and changes nothing (see `Client.withCookieJar`).
        var configuration = configuration
        configuration.requestOptions.cookieJar = configuration.cookies.map(CookieJarReference.init)
        self.configuration = configuration
        self.transport = transport
        self.interceptors = chain
        self.inFlight = InFlightRequests()
        self.eventHub = TaskEventHub()
        self.metricsAggregator = MetricsAggregator()
        self.insecureTLSWarning = InsecureTLSWarning()
        insecureTLSWarning.note(configuration.requestOptions)
    }

    init(deriving client: Client, chain: [any Interceptor]) {
        resolution = client.resolution
        baseURL = client.baseURL
        configuration = client.configuration
        transport = client.transport
        interceptors = chain
        inFlight = client.inFlight
        eventHub = client.eventHub
        metricsAggregator = client.metricsAggregator
        insecureTLSWarning = client.insecureTLSWarning
    }

    /// The scheduler of the default configuration.
    public static let defaultScheduler: any DateScheduler = QueueScheduler(name: "sluice.client")

    /// The absolute URL for `path` (see `BaseURLResolution`).
    public func url(for path: String) throws(SluiceError) -> URL {
        if let resolution {
            // Compared byte for byte: `==` holds for canonically equivalent strings (an é composed
            // or decomposed), which are encoded into different URLs.
            if let url = lastResolved.withLock({ last in
                last.flatMap { $0.path.hasSameUTF8(as: path) ? $0.url : nil }
            }) {
                return url
            }
            let url = try resolution.resolve(path)
            lastResolved.withLock { $0 = (path, url) }
            return url
        }
        guard let url = URL(string: path), url.scheme != nil else {
            throw SluiceError(
                .invalidURL, "\(path.debugDescription) is not an absolute URL, and the client has no base URL.")
        }
        return url
    }

    /// The request `method path` with `parameters` encoded (by `encoding`, or the configuration's
    /// `parameterEncoding`), then changed by `modify` if given (the default headers are added
    /// later, by the chain's `DefaultHeadersInterceptor`).
    public func makeRequest(
        _ method: HTTPMethod,
        _ path: String,
        parameters: Parameters? = nil,
        encoding: (any ParameterEncoding)? = nil,
        headers: HTTPHeaders = [:],
        modify: RequestModifier? = nil
    ) throws(SluiceError) -> Request {
        var request = Request(
            method: method, url: try url(for: path), headers: headers, options: configuration.requestOptions)
        if let parameters {
            request = try (encoding ?? configuration.parameterEncoding).encode(request, with: parameters)
        }
        try modify?(&request)
        return request
    }

    /// A cold producer for `method path`: parameters are encoded and `modify` runs when it is
    /// made; an invalid request fails when started, and nothing is sent.
    public func request(
        _ method: HTTPMethod,
        _ path: String,
        parameters: Parameters? = nil,
        encoding: (any ParameterEncoding)? = nil,
        headers: HTTPHeaders = [:],
        modify: RequestModifier? = nil
    ) -> SignalProducer<Response, SluiceError> {
        do throws(SluiceError) {
            return send(
                try makeRequest(
                    method, path, parameters: parameters, encoding: encoding, headers: headers, modify: modify))
        } catch {
            return SignalProducer(error: error)
        }
    }
}
