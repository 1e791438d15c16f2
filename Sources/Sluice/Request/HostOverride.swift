import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Sends the connections for one `host:port` somewhere else than DNS says: to an address
/// (`resolve`, as curl's `--resolve`) or to another host and port (`connect`, as curl's
/// `--connect-to`). The request itself is unchanged: its `Host` header, the TLS server name (SNI)
/// and the certificate check still use the URL's host.
///
///     var options = RequestOptions()
///     options.hostOverrides = [.resolve("api.example.com", port: 443, to: "10.0.0.7")]
///
/// An override belongs to the requests that carry it: a connection made through one is never
/// reused by a request without it, and no other request's name lookup sees it.
public struct HostOverride: Sendable, Equatable, CustomStringConvertible {
    /// The host of the requests it applies to, as in their URLs.
    public let host: String
    /// The port of the requests it applies to (the URL's, or its scheme's default).
    public let port: Int
    /// Where their connections go: an address for `resolve`, a host name or an address for `connect`.
    public let target: String
    /// The port their connections go to.
    public let targetPort: Int

    /// The entry for CURLOPT_CONNECT_TO, made once: `host:port:target:targetPort`.
    let line: String
    /// Why the override cannot be used, if it cannot: the request then fails before anything is
    /// sent, with `.invalidOption`.
    let problem: String?

    private init(host: String, port: Int, target: String, targetPort: Int, needsAddress: Bool) {
        self.host = host
        self.port = port
        self.target = target
        self.targetPort = targetPort
        let bracketed = target.contains(":") ? "[\(target)]" : target
        line = "\(host):\(port):\(bracketed):\(targetPort)"
        problem = Self.problem(
            host: host, port: port, target: target, targetPort: targetPort, needsAddress: needsAddress)
    }

    /// Connections for `host:port` go to `address` (IPv4 or IPv6, without brackets), same port.
    public static func resolve(_ host: String, port: Int, to address: String) -> HostOverride {
        HostOverride(host: host, port: port, target: address, targetPort: port, needsAddress: true)
    }

    /// Connections for `host:port` go to `targetHost:targetPort` (a name, looked up as usual, or an
    /// address).
    public static func connect(_ host: String, port: Int, to targetHost: String, port targetPort: Int)
        -> HostOverride
    {
        HostOverride(host: host, port: port, target: targetHost, targetPort: targetPort, needsAddress: false)
    }

    /// `host:port -> target:targetPort`.
    public var description: String { "\(host):\(port) -> \(target):\(targetPort)" }

    private static func problem(host: String, port: Int, target: String, targetPort: Int, needsAddress: Bool)
        -> String?
    {
        let shown = "The host override \(host):\(port) -> \(target):\(targetPort)"
        guard (1...65_535).contains(port), (1...65_535).contains(targetPort) else {
            return "\(shown) has a port that is not between 1 and 65535."
        }
        guard isHostName(host) else { return "\(shown) does not name a host (letters, digits, '-', '.', '_')." }
        if needsAddress {
            guard isAddress(target) else { return "\(shown) does not go to an IPv4 or IPv6 address." }
        } else {
            guard isHostName(target) || isAddress(target) else {
                return "\(shown) does not go to a host name or an address."
            }
        }
        return nil
    }

    /// Whether `text` is a host name (or an IPv4 address): nothing that would change the entry's
    /// `:`-separated fields.
    private static func isHostName(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                    return true
                default:
                    return false
                }
            }
    }

    private static func isAddress(_ text: String) -> Bool {
        var buffer = in6_addr()
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }
}
