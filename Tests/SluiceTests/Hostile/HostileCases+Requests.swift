import Foundation
import Sluice
import SluiceTesting

/// Requests that would smuggle bytes into the request head: CR, LF and NUL in every part, methods
/// that are not tokens, a URL too long for libcurl. Header fields and methods are refused before
/// anything is sent (not even a connection is made); paths, queries and parameters are
/// percent-encoded on the way and arrive encoded, never raw.
extension HostileCase {
    static let requests: [HostileCase] =
        breaks.flatMap { name, byte in
            [
                encoded("path-with-\(name)", "a%" + hex(byte) + "b") { $0.get("a\(byte)b") },
                encoded("query-with-\(name)", "x=1%" + hex(byte) + "Host") { $0.get("a?x=1\(byte)Host: evil") },
                refused("header-name-with-\(name)", .invalidHeader) { $0.get(path, headers: ["X-A\(byte)B": "v"]) },
                refused("header-value-with-\(name)", .invalidHeader) {
                    $0.get(path, headers: ["X-A": "v\(byte)X-Injected: 1"])
                },
                refused("method-with-\(name)", .invalidMethod) { $0.send(request($0, method: "GET\(byte)X")) },
                encoded("parameter-with-\(name)", "%" + hex(byte)) {
                    $0.get("echo", parameters: ["q": .string("a\(byte)b")])
                },
            ]
        } + [
            HostileCase(
                name: "fragment-with-lf", group: .requests, proves: "A fragment, LF and all, is never sent.",
                server: .echo, outcome: .arrives { $0.target == "/a" }, send: { $0.get("a#b\nc") }),
            encoded("path-with-space", "a%20b") { $0.get("a b") },
            refused("header-name-with-colon", .invalidHeader) { $0.get(path, headers: ["X-A: B": "v"]) },
            refused("header-name-with-space", .invalidHeader) { $0.get(path, headers: ["X A": "v"]) },
            refused("header-name-empty", .invalidHeader) { $0.get(path, headers: ["": "v"]) },
            refused("method-empty", .invalidMethod) { $0.send(request($0, method: "")) },
            refused("method-with-space", .invalidMethod) { $0.send(request($0, method: "GET /x HTTP/1.1")) },
            refused("method-not-ascii", .invalidMethod) { $0.send(request($0, method: "G\u{C9}T")) },
            refused("method-with-separator", .invalidMethod) { $0.send(request($0, method: "GET(1)")) },
            refused("url-past-8-mib", .invalidURL) { $0.get(path + "?q=" + filler(9 << 20)) },
            encoded("form-body-with-crlf", "a%0D%0Ab") {
                $0.post("echo", parameters: ["q": "a\r\nb"], encoding: URLEncoding(destination: .httpBody))
            },
        ]

    private static let breaks: [(String, String)] = [("cr", "\r"), ("lf", "\n"), ("nul", "\u{0}")]

    private static func hex(_ character: String) -> String {
        String(format: "%02X", character.utf8.first!)
    }

    private static func refused(
        _ name: String, _ code: SluiceError.Code,
        send: @escaping @Sendable (Client) -> SignalProducer<Response, SluiceError>
    ) -> HostileCase {
        HostileCase(
            name: name, group: .requests,
            proves: "Refused as \(code.name) before any byte is sent.", server: .neverReached,
            outcome: .fails(code), send: send)
    }

    /// A request whose query or body must carry `encoded` where the raw byte was.
    private static func encoded(
        _ name: String, _ encoded: String, send: @escaping @Sendable (Client) -> SignalProducer<Response, SluiceError>
    ) -> HostileCase {
        HostileCase(
            name: name, group: .requests, proves: "Sent percent-encoded (\(encoded)), never raw.", server: .echo,
            outcome: .arrives {
                $0.target.contains(encoded) || String(decoding: $0.body, as: UTF8.self).contains(encoded)
            },
            send: send)
    }

    /// A GET of `path` with this method, however invalid.
    private static func request(_ client: Client, method: String) -> Request {
        // swift-format-ignore: NeverUseForceTry
        var request = try! client.makeRequest(.get, path)
        request.method = HTTPMethod(rawValue: method)
        return request
    }
}
