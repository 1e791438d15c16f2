import FoundationEssentials

/// A proxy that requests go through: an HTTP proxy, an HTTPS proxy (TLS to the proxy itself) or a
/// SOCKS5 proxy, with optional credentials and a list of hosts that bypass it.
///
///     var options = RequestOptions()
///     options.proxy = .http(host: "proxy.internal", port: 3128)
///         .authenticated(username: "ada", password: "s3cret")
///         .bypassing(["localhost", ".internal"])
///
/// An `http` URL goes to an HTTP or HTTPS proxy as a forwarded request (its absolute URL), an
/// `https` URL through a `CONNECT` tunnel. A proxy's 407 fails the request with `.cannotConnect`
/// naming the proxy: it is the proxy's refusal, not the origin's answer. A SOCKS5 proxy always resolves the host name itself
/// (`socks5h`): the name, not an address looked up here, goes to the proxy. Credentials go to
/// libcurl apart from the URL, so no character in them needs escaping.
///
/// The text that libcurl is given is made once, here, not for every request.
public struct Proxy: Sendable, Equatable, CustomStringConvertible {
    /// The protocol spoken with the proxy.
    public enum Kind: Sendable, Equatable {
        /// HTTP to the proxy: forwarded requests and CONNECT tunnels.
        case http
        /// HTTP over TLS to the proxy; the proxy's certificate is checked (see `Proxy.TLS`).
        case https
        /// SOCKS5 (RFC 1928), the host name resolved by the proxy.
        case socks5
    }

    /// A user name and password for the proxy (Basic for an HTTP proxy, RFC 1929 for SOCKS5).
    public struct Credentials: Sendable, Equatable {
        /// The user name.
        public var username: String
        /// The password.
        public var password: String

        /// Credentials for the proxy.
        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }
    }

    /// How the certificate of an HTTPS proxy is checked: on by default, against the system's
    /// roots, apart from the origin's own TLS settings.
    public struct TLS: Sendable, Equatable {
        /// CA certificates (PEM) the proxy's certificate may be issued by, for a proxy whose
        /// authority is not among the system's roots; nil for the system's roots alone.
        public var caCertificates: Data? = nil
        /// Whether the proxy's certificate and host name are checked. Turn it off only for a proxy
        /// on a network you control: anyone in the path could then read the traffic.
        public var verifiesCertificate = true

        /// The default: the proxy's certificate is checked against the system's roots.
        public init() {}

        /// Trusts `caCertificates` (PEM) for the proxy, with verification on.
        public init(caCertificates: Data) {
            self.caCertificates = caCertificates
        }

        /// No check of the proxy's certificate at all.
        public static let insecure: TLS = {
            var tls = TLS()
            tls.verifiesCertificate = false
            return tls
        }()
    }

    /// The protocol spoken with the proxy.
    public let kind: Kind
    /// The proxy's host name or address (an IPv6 address without brackets).
    public let host: String
    /// The proxy's port.
    public let port: Int
    /// The credentials sent to the proxy, if any.
    public var credentials: Credentials? = nil
    /// Hosts that are reached directly, not through the proxy: a name matches itself and its
    /// subdomains (`example.com`, or `.example.com`), an address or a CIDR range (`10.0.0.0/8`)
    /// matches addresses, `*` matches every host. Empty: every request goes through the proxy.
    public var bypass: [String] = [] {
        didSet { bypassText = bypass.isEmpty ? nil : bypass.joined(separator: ",") }
    }
    /// How an HTTPS proxy's certificate is checked; unused for the other kinds.
    public var tls = TLS()

    /// The proxy's URL for CURLOPT_PROXY, without credentials: `scheme://host:port`.
    let url: String
    /// The bypass list for CURLOPT_NOPROXY, joined once; nil when empty.
    private(set) var bypassText: String? = nil
    /// Why the host or port cannot be used, if they cannot: the request then fails before anything
    /// is sent, with `.invalidOption`.
    let problem: String?

    /// A proxy of `kind` at `host` and `port`.
    public init(_ kind: Kind, host: String, port: Int) {
        self.kind = kind
        self.host = host
        self.port = port
        let scheme: String
        switch kind {
        case .http: scheme = "http"
        case .https: scheme = "https"
        case .socks5: scheme = "socks5h"
        }
        let authority = host.contains(":") ? "[\(host)]" : host
        url = "\(scheme)://\(authority):\(port)"
        problem = Self.problem(host: host, port: port, url: url)
    }

    /// An HTTP proxy.
    public static func http(host: String, port: Int) -> Proxy { Proxy(.http, host: host, port: port) }

    /// An HTTPS proxy: TLS to the proxy, its certificate checked as `tls` says.
    public static func https(host: String, port: Int, tls: TLS = TLS()) -> Proxy {
        var proxy = Proxy(.https, host: host, port: port)
        proxy.tls = tls
        return proxy
    }

    /// A SOCKS5 proxy, which resolves the host names itself.
    public static func socks5(host: String, port: Int) -> Proxy { Proxy(.socks5, host: host, port: port) }

    /// The proxy with these credentials.
    public func authenticated(username: String, password: String) -> Proxy {
        var proxy = self
        proxy.credentials = Credentials(username: username, password: password)
        return proxy
    }

    /// The proxy with `hosts` reached directly (see `bypass`).
    public func bypassing(_ hosts: [String]) -> Proxy {
        var proxy = self
        proxy.bypass = hosts
        return proxy
    }

    /// `scheme://host:port`, never the credentials.
    public var description: String { url }

    private static func problem(host: String, port: Int, url: String) -> String? {
        guard (1...65_535).contains(port) else {
            return "The proxy \(url) has port \(port), which is not between 1 and 65535."
        }
        guard !host.isEmpty else { return "The proxy \(url) has an empty host." }
        // Letters, digits, `-`, `.` and `_` make a name, hex digits, `.`, `:` and `%` (a zone) an
        // address: anything else would change the URL libcurl parses.
        let allowed = host.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: ":"), UInt8(ascii: "%"):
                return true
            default:
                return false
            }
        }
        guard allowed else {
            return "The proxy host \(host.debugDescription) is not a host name or an address."
        }
        return nil
    }
}

extension Proxy {
    /// A proxy from a URL such as `http://user:password@proxy:3128`: the scheme is `http`,
    /// `https`, `socks5` or `socks5h` (both resolve names at the proxy), the port is required, and
    /// percent-escapes in the credentials are decoded. Fails with `.invalidOption` naming the URL
    /// (its password hidden).
    public init(url text: String) throws(SluiceError) {
        let shown = CurlShell.redactingPassword(in: text)
        guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(),
            let host = parts.host, !host.isEmpty
        else {
            throw SluiceError(.invalidOption, "The proxy URL \(shown.debugDescription) cannot be parsed.")
        }
        let kind: Kind
        switch scheme {
        case "http": kind = .http
        case "https": kind = .https
        case "socks5", "socks5h": kind = .socks5
        default:
            throw SluiceError(
                .invalidOption,
                "The proxy URL \(shown.debugDescription) has the scheme \(scheme); http, https, socks5 and socks5h are supported."
            )
        }
        guard let port = parts.port else {
            throw SluiceError(.invalidOption, "The proxy URL \(shown.debugDescription) has no port.")
        }
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.init(kind, host: bareHost, port: port)
        if let problem { throw SluiceError(.invalidOption, problem) }
        if let user = parts.user {
            // URLComponents decodes the percent-escapes of both.
            credentials = Credentials(username: user, password: parts.password ?? "")
        }
    }
}
