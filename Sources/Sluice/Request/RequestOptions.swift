import FoundationEssentials

/// Per-request transfer settings, with safe defaults that libcurl does not have on its own.
public struct RequestOptions: Sendable, Equatable {
    /// How long to wait for a connection (DNS, TCP and TLS); libcurl's own default is 300 s.
    public var connectTimeout: Duration {
        _read { yield storage.values.connectTimeout }
        _modify { yield &unique().values.connectTimeout }
    }
    /// The longest the whole transfer may take; nil for no limit (the default: a large download
    /// may take long, and `idleTimeout` catches a stalled one).
    public var timeout: Duration? {
        _read { yield storage.values.timeout }
        _modify { yield &unique().values.timeout }
    }
    /// The longest the whole request may take, across every retry attempt, backoff wait and
    /// redirect hop; nil for no limit (the default). When it passes, the request fails with
    /// `.timedOut` whose `timeout` is `.deadline`, and the transfer in flight is cancelled.
    /// (`timeout` bounds each transfer on its own.)
    public var deadline: Duration? {
        _read { yield storage.values.deadline }
        _modify { yield &unique().values.deadline }
    }
    /// This request's retry policy, or nil to use the client's (`Client.Configuration.retryPolicy`,
    /// or a `.retry(...)` interceptor's). It takes the place of both; `.never` turns retrying off.
    public var retryPolicy: RetryPolicy? {
        _read { yield storage.values.retryPolicy }
        _modify { yield &unique().values.retryPolicy }
    }
    /// The longest no byte may move in either direction before the transfer is abandoned. A slow
    /// transfer that keeps moving is never cut off. libcurl waits forever by default. The transport
    /// looks for stalled transfers every 100 ms, so the timeout fires up to 300 ms late.
    public var idleTimeout: Duration {
        _read { yield storage.values.idleTimeout }
        _modify { yield &unique().values.idleTimeout }
    }
    /// The most decoded body bytes accepted in memory (a gzip bomb counts what it decodes to). A
    /// body written to a file is bounded by `maximumDownloadSize` instead.
    public var maximumBodySize: Int64 {
        _read { yield storage.values.maximumBodySize }
        _modify { yield &unique().values.maximumBodySize }
    }
    /// The most decoded body bytes of one response written to a file (see `BodyDestination`); nil,
    /// the default, for no limit: the disk bounds a download, not the process's memory, so a 1 GiB
    /// download works with the defaults.
    public var maximumDownloadSize: Int64? {
        _read { yield storage.values.maximumDownloadSize }
        _modify { yield &unique().values.maximumDownloadSize }
    }
    /// The shortest time between two progress events of one transfer, about 60 a second by
    /// default; zero reports every chunk. The first chunk and the last byte are always reported,
    /// so progress still shows the start and reaches 100%.
    public var progressInterval: Duration {
        _read { yield storage.values.progressInterval }
        _modify { yield &unique().values.progressInterval }
    }
    /// `progressInterval`'s default, about a 60th of a second: the transport compares a request's
    /// interval with it instead of converting the interval for every request.
    static let defaultProgressInterval: Duration = .nanoseconds(defaultProgressNanoseconds)
    /// `defaultProgressInterval` in nanoseconds.
    static let defaultProgressNanoseconds: Int64 = 16_666_667
    /// The most header bytes accepted for one response. libcurl also refuses any single header
    /// line longer than 100 KiB (`CURL_MAX_HTTP_HEADER`), whatever this says; both fail with
    /// `.headersTooLarge`, whose message names the limit.
    public var maximumHeaderSize: Int {
        _read { yield storage.values.maximumHeaderSize }
        _modify { yield &unique().values.maximumHeaderSize }
    }
    /// Which HTTP version to use.
    public var httpVersion: HTTPVersionPreference {
        _read { yield storage.values.httpVersion }
        _modify { yield &unique().values.httpVersion }
    }
    /// Where the response body goes.
    public var destination: BodyDestination {
        _read { yield storage.values.destination }
        _modify { yield &unique().values.destination }
    }
    /// The size of libcurl's receive buffer; nil for libcurl's default (16 KiB). Large values
    /// (e.g. 512 KiB) speed up bulk downloads; downloads to a file use 512 KiB unless set.
    public var receiveBufferSize: Int? {
        _read { yield storage.values.receiveBufferSize }
        _modify { yield &unique().values.receiveBufferSize }
    }
    /// The proxy to go through; nil for none. Proxy environment variables are ignored unless
    /// `proxyFromEnvironment`.
    public var proxy: Proxy? {
        _read { yield storage.values.proxy }
        _modify { yield &unique().values.proxy }
    }
    /// Whether to honour `http_proxy`, `https_proxy` and `no_proxy` from the environment. With a
    /// `proxy` set as well, that proxy is used and `no_proxy` still names the hosts that bypass it
    /// (unless the proxy has a `bypass` list of its own).
    public var proxyFromEnvironment: Bool {
        _read { yield storage.values.proxyFromEnvironment }
        _modify { yield &unique().values.proxyFromEnvironment }
    }
    /// Where the connections for some hosts go instead of where DNS says (see `HostOverride`);
    /// the first one that matches a request's host and port applies.
    public var hostOverrides: [HostOverride] {
        _read { yield storage.values.hostOverrides }
        _modify { yield &unique().values.hostOverrides }
    }
    /// Which IP versions connections may use.
    public var ipPreference: IPPreference {
        _read { yield storage.values.ipPreference }
        _modify { yield &unique().values.ipPreference }
    }
    /// The path of a Unix domain socket every connection goes to instead of the URL's host and
    /// port (the Docker Engine's `/var/run/docker.sock`, say); nil for TCP. The URL still gives
    /// the request's `Host` header, path and query.
    public var unixSocketPath: String? {
        _read { yield storage.values.unixSocketPath }
        _modify { yield &unique().values.unixSocketPath }
    }
    /// How TLS connections are made and servers trusted (roots, version, pins, client certificate).
    public var tls: TLSConfiguration {
        _read { yield storage.values.tls }
        _modify { yield &unique().values.tls }
    }
    /// TLS configurations for particular hosts (by name, case-insensitive), used instead of `tls`
    /// for a request, or a redirect, to that host.
    public var tlsForHosts: [String: TLSConfiguration] {
        _read { yield storage.values.tlsForHosts }
        _modify { yield &unique().values.tlsForHosts }
    }
    /// Whether to verify the server's TLS certificate and host name.
    @available(
        *, deprecated, message: "Set tls.insecureSkipsPeerVerification and tls.insecureSkipsHostNameVerification."
    )
    public var verifyTLS: Bool {
        get { !tls.isInsecure }
        set {
            tls.insecureSkipsPeerVerification = !newValue
            tls.insecureSkipsHostNameVerification = !newValue
        }
    }
    /// Whether to ask for compressed bodies and decode them (gzip, deflate, br, zstd).
    public var decompress: Bool {
        _read { yield storage.values.decompress }
        _modify { yield &unique().values.decompress }
    }
    /// How the request uses the client's cache (`Client.Configuration.cache`), if it has one.
    public var cachePolicy: CachePolicy {
        _read { yield storage.values.cachePolicy }
        _modify { yield &unique().values.cachePolicy }
    }
    /// Whether the client's cookie jar (`Client.Configuration.cookies`) stores the cookies of this
    /// request's responses and sends its cookies with it, on every redirect hop; false leaves the
    /// jar out of this request (as `URLRequest.httpShouldHandleCookies` does).
    public var usesCookies: Bool {
        _read { yield storage.values.usesCookies }
        _modify { yield &unique().values.usesCookies }
    }
    /// The jar a client hands its requests (see `Client.send`); nil when the client has none.
    var cookieJar: CookieJarReference? {
        _read { yield storage.values.cookieJar }
        _modify { yield &unique().values.cookieJar }
    }

    private var storage = RequestOptions.defaults

    /// The box of the default options, shared by every value made with `init()` until it changes.
    /// Never written: a value that holds it is never its only owner, so `unique()` copies first.
    private static let defaults = Storage()

    /// The options' values, shared by copies until one of them changes (copy on write): a request
    /// is copied several times on its way through the chain, and every copy of twenty-odd fields,
    /// several of them references, cost as much as the rest of the copy.
    private final class Storage: @unchecked Sendable {
        // `@unchecked`: mutated only through `unique()`, when the options value that owns the box
        // is its only owner.
        struct Values: Sendable, Equatable {
            var connectTimeout: Duration = .seconds(10)
            var timeout: Duration? = nil
            var deadline: Duration? = nil
            var retryPolicy: RetryPolicy? = nil
            var idleTimeout: Duration = .seconds(30)
            var maximumBodySize: Int64 = 256 * 1024 * 1024
            var maximumDownloadSize: Int64? = nil
            var progressInterval: Duration = RequestOptions.defaultProgressInterval
            var maximumHeaderSize: Int = 256 * 1024
            var httpVersion: HTTPVersionPreference = .automatic
            var destination: BodyDestination = .memory
            var receiveBufferSize: Int? = nil
            var proxy: Proxy? = nil
            var proxyFromEnvironment: Bool = false
            var hostOverrides: [HostOverride] = []
            var ipPreference: IPPreference = .any
            var unixSocketPath: String? = nil
            var tls: TLSConfiguration = TLSConfiguration()
            var tlsForHosts: [String: TLSConfiguration] = [:]
            var decompress: Bool = true
            var cachePolicy: CachePolicy = .useProtocol
            var usesCookies: Bool = true
            var cookieJar: CookieJarReference? = nil
        }

        @exclusivity(unchecked) var values: Values

        init(_ values: Values = Values()) {
            self.values = values
        }
    }

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.values) }
        return storage
    }

    /// Equal when every option is.
    public static func == (lhs: RequestOptions, rhs: RequestOptions) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.values == rhs.storage.values
    }

    /// The default options.
    public init() {}

    /// How the HTTP version is chosen.
    public enum HTTPVersionPreference: Sendable, Equatable {
        /// HTTP/2 over TLS when the server offers it (ALPN), HTTP/1.1 otherwise.
        case automatic
        /// HTTP/1.1 only.
        // swift-format-ignore: AlwaysUseLowerCamelCase
        case http1_1
        /// HTTP/2, also without TLS (prior knowledge).
        case http2
    }

    /// Which IP versions connections may use.
    public enum IPPreference: Sendable, Equatable {
        /// Whichever the host has (both tried, IPv6 and IPv4 raced).
        case any
        /// IPv4 addresses only.
        case ipv4
        /// IPv6 addresses only.
        case ipv6
    }

    /// Where a response body is delivered.
    public enum BodyDestination: Sendable, Equatable {
        /// Collected in memory and delivered as chunks to the subscriber.
        case memory
        /// Written to a file as it arrives; the response carries the file's URL.
        case file(URL)
        /// Written to a file that may already hold the first `offset` bytes of the body (a resumed
        /// download): a 206 response is written after them, any other success (2xx) over the file
        /// from its start. The body of any other status is collected in memory, and the file is
        /// left as it was. `Client.download` writes its temporary file this way.
        case partialFile(URL, offset: Int64)

        /// The file the body of a response with `status` goes to, if any.
        func fileURL(status: Int) -> URL? {
            switch self {
            case .memory: return nil
            case .file(let url): return url
            case .partialFile(let url, _): return (200..<300).contains(status) ? url : nil
            }
        }

        /// The file a transfer opens, if any.
        var openedFile: URL? {
            switch self {
            case .memory: return nil
            case .file(let url), .partialFile(let url, _): return url
            }
        }
    }
}
