import Foundation
import Sluice
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP proxy on 127.0.0.1 that reaches origins on 127.0.0.1 only, whatever host it is asked
/// for. It tunnels: `CONNECT host:port` is answered with a 200 that carries a header of its own
/// (`Proxy-Agent`), then bytes are copied both ways until either side closes. It forwards: a
/// request with an absolute URL (`GET http://host:port/path`) goes to that port in origin form,
/// without `Proxy-Authorization`, with `Connection: close` (one request per connection). With
/// `credentials`, a request without them in `Proxy-Authorization` (Basic) gets a 407. Each
/// connection runs on its own thread; every request is recorded.
final class ConnectProxy: ThreadedLoopbackServer, @unchecked Sendable {
    /// What the proxy was asked for.
    struct Record: Equatable {
        /// The method: `CONNECT` for a tunnel.
        var method: String
        /// The request target: `host:port` for a tunnel, the absolute URL for a forwarded request.
        var target: String
        /// Whether the request had the expected credentials (true when none are expected).
        var authorized: Bool
    }

    private let expectedAuthorization: String?
    private let records = Mutex<[Record]>([])

    /// A proxy that asks for `credentials` (user name and password), if given.
    init(credentials: (username: String, password: String)? = nil) throws {
        expectedAuthorization = credentials.map {
            "Basic " + Data("\($0.username):\($0.password)".utf8).base64EncodedString()
        }
        try super.init()
    }

    /// Every request the proxy received, in order.
    var recorded: [Record] { records.withLock { $0 } }

    /// How many tunnels were asked for.
    var connectCount: Int { recorded.filter { $0.method == "CONNECT" }.count }

    /// The proxy's URL.
    var url: String { "http://127.0.0.1:\(port)" }

    /// The proxy, for `RequestOptions.proxy`.
    var proxy: Proxy { .http(host: "127.0.0.1", port: port) }

    override func serve(_ client: Int32) {
        guard let head = LoopbackSocket.readHead(client) else { return }
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let parts = lines.first?.split(separator: " ").map(String.init) ?? []
        guard parts.count == 3 else { return }
        let authorization = lines.dropFirst().first { $0.lowercased().hasPrefix("proxy-authorization:") }
            .map { String($0.dropFirst("proxy-authorization:".count)).trimmingCharacters(in: .whitespaces) }
        let authorized = expectedAuthorization == nil || authorization == expectedAuthorization
        records.withLock { $0.append(Record(method: parts[0], target: parts[1], authorized: authorized)) }
        guard authorized else {
            LoopbackSocket.sendAll(
                client,
                "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"sluice-tests\"\r\n"
                    + "Content-Length: 0\r\nConnection: close\r\n\r\n")
            return
        }
        if parts[0] == "CONNECT" {
            guard let targetPort = parts[1].split(separator: ":").last.flatMap({ Int($0) }),
                let server = LoopbackSocket.connect(to: targetPort)
            else { return }
            defer { close(server) }
            guard
                LoopbackSocket.sendAll(
                    client, "HTTP/1.1 200 Connection established\r\nProxy-Agent: sluice-tests\r\n\r\n")
            else { return }
            LoopbackSocket.relay(client, server)
            return
        }
        // A forwarded request: to its origin in origin form.
        guard let url = URLComponents(string: parts[1]), let targetPort = url.port,
            let server = LoopbackSocket.connect(to: targetPort)
        else { return }
        defer { close(server) }
        let query = url.percentEncodedQuery.map { "?\($0)" } ?? ""
        lines[0] = "\(parts[0]) \(url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath)\(query) \(parts[2])"
        lines.removeAll { line in
            let name = line.lowercased()
            return name.hasPrefix("proxy-authorization:") || name.hasPrefix("proxy-connection:")
                || name.hasPrefix("connection:") || line.isEmpty
        }
        lines.append("Connection: close")
        guard LoopbackSocket.sendAll(server, lines.joined(separator: "\r\n") + "\r\n\r\n") else { return }
        LoopbackSocket.relay(client, server)
    }
}
