import Foundation
import Sluice

/// Routes about authentication, cookies and redirects.
extension MockRouter {
    static func basicAuth(_ segments: [String], request: RecordedRequest) -> ResponsePlan {
        guard segments.count == 3 else { return badRequest }
        let expected = Data("\(segments[1]):\(segments[2])".utf8).base64EncodedString()
        if let credentials = authorization(request, scheme: "basic"), credentials == expected {
            return .reply(.json(AuthReply(authenticated: true, user: segments[1])))
        }
        return .reply(
            .json(
                status: 401, AuthReply(authenticated: false, user: nil),
                headers: [("WWW-Authenticate", "Basic realm=\"MockServer\", charset=\"UTF-8\"")]))
    }

    static func bearer(_ segments: [String], request: RecordedRequest) -> ResponsePlan {
        guard segments.count == 2 else { return badRequest }
        let presented = authorization(request, scheme: "bearer")
        if presented == segments[1] {
            return .reply(.json(AuthReply(authenticated: true, user: nil)))
        }
        let challenge =
            presented == nil ? "Bearer realm=\"MockServer\"" : "Bearer realm=\"MockServer\", error=\"invalid_token\""
        return .reply(
            .json(status: 401, AuthReply(authenticated: false, user: nil), headers: [("WWW-Authenticate", challenge)]))
    }

    /// The credentials of the `Authorization` header when it uses `scheme` (compared case-insensitively).
    private static func authorization(_ request: RecordedRequest, scheme: String) -> String? {
        guard let value = request.headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == scheme else { return nil }
        return parts[1].trimmingWhitespace()
    }

    static func cookies(_ segments: [String], request: RecordedRequest) -> ResponsePlan {
        switch segments.count {
        case 1:
            let header = request.headers.values(for: "Cookie").joined(separator: "; ")
            var cookies: [String: String] = [:]
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].trimmingWhitespace()
                guard !name.isEmpty else { continue }
                cookies[name] = parts.count > 1 ? parts[1].trimmingWhitespace() : ""
            }
            return .reply(.json(CookiesReply(cookies: cookies, header: header.isEmpty ? nil : header)))
        case 2 where segments[1] == "set":
            let pairs = RoutePercentEncoding.parseQueryPairs(request.query)
            let headers = pairs.map { ("Set-Cookie", "\($0.0)=\($0.1); Path=/") }
            let cookies = Dictionary(pairs, uniquingKeysWith: { _, last in last })
            return .reply(.json(CookiesReply(cookies: cookies, header: nil), headers: headers))
        default:
            return notFound(request)
        }
    }

    static func redirect(_ query: [String: [String]]) -> ResponsePlan {
        guard let status = integer(query["status"]?.first, minimum: 300), status < 400,
            let location = query["to"]?.first
        else { return badRequest }
        return .reply(.text(status: status, "Redirecting to \(location)\n", headers: [("Location", location)]))
    }

    static func redirectChain(_ segments: [String], request: RecordedRequest) -> ResponsePlan {
        guard segments.count == 2, let remaining = integer(segments[1]) else { return badRequest }
        guard remaining > 0 else { return .reply(.json(EchoReply(request))) }
        // Absolute, built from the Host the client used, as `MockServer.url(for:)` would.
        let host = request.headers["Host"] ?? "127.0.0.1"
        let location = "http://\(host)/redirect-chain/\(remaining - 1)"
        return .reply(.text(status: 302, "Redirecting to \(location)\n", headers: [("Location", location)]))
    }
}

/// The JSON body of the auth routes.
private struct AuthReply: Encodable {
    let authenticated: Bool
    let user: String?
}

/// The JSON body of the cookie routes.
private struct CookiesReply: Encodable {
    let cookies: [String: String]
    let header: String?
}
