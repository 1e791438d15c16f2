import Foundation
internal import NIOCore
import Sluice

/// Maps a recorded request to what the server does about it (the routes of `Endpoint`).
///
/// Wire scripts win over scripted replies, and scripted paths over built-in routes. Everything here runs on the connection's event loop
/// and only decides: the connection handler writes.
enum MockRouter {
    static func plan(for request: RecordedRequest, state: MockServerState) -> ResponsePlan {
        let decodedPath = RoutePercentEncoding.decode(Substring(request.path))
        if let steps = state.wireScript(for: decodedPath) {
            return .wire(steps)
        }
        if let handler = state.wireHandler(for: decodedPath) {
            return .wire(handler(request))
        }
        if let scripted = state.nextScriptedResponse(for: decodedPath) {
            return .reply(Reply(scripted))
        }
        let segments = request.path.split(separator: "/").map { RoutePercentEncoding.decode($0) }
        let query = request.queryItems
        switch segments.first {
        case nil: return .reply(.text("Sluice MockServer\n"))
        case "echo": return .reply(.json(EchoReply(request)))
        case "status": return status(segments)
        case "delay":
            guard segments.count == 2, let milliseconds = Int64(segments[1]), milliseconds >= 0 else {
                return badRequest
            }
            var reply = Reply.json(EchoReply(request))
            reply.delay = .milliseconds(milliseconds)
            return .reply(reply)
        case "bytes": return bytes(segments)
        case "drip": return drip(query)
        case "events": return events(query, request: request)
        case "chunked": return chunked(query)
        case "chunked-bytes": return chunkedBytes(query)
        case "gzip", "gzip-bomb": return gzip(segments)
        case "redirect", "relative-redirect": return redirect(query)
        case "redirect-chain": return redirectChain(segments, request: request)
        case "basic-auth": return basicAuth(segments, request: request)
        case "bearer": return bearer(segments, request: request)
        case "cookies": return cookies(segments, request: request)
        case "response-headers": return responseHeaders(request)
        case "range": return range(segments, request: request)
        case "flaky": return flaky(segments, query: query, state: state)
        case "fault":
            guard segments.count == 2, let fault = Fault(name: segments[1], query: query) else {
                return notFound(request)
            }
            return .fault(fault)
        default: return notFound(request)
        }
    }

    static var badRequest: ResponsePlan {
        .reply(.json(status: 400, ["error": "malformed route parameters"]))
    }

    static func notFound(_ request: RecordedRequest) -> ResponsePlan {
        .reply(.json(status: 404, ["error": "no route or script for \(request.path)"]))
    }

    /// An integer parameter that must be at least `minimum`.
    static func integer(_ text: String?, minimum: Int = 0) -> Int? {
        guard let text, let value = Int(text), value >= minimum else { return nil }
        return value
    }

    private static func status(_ segments: [String]) -> ResponsePlan {
        guard segments.count == 2, let code = integer(segments[1], minimum: 100), code <= 999 else { return badRequest }
        if code < 200 || code == 204 || code == 304 {
            return .reply(Reply(status: code))
        }
        return .reply(.json(status: code, ["status": code]))
    }

    private static func flaky(_ segments: [String], query: [String: [String]], state: MockServerState) -> ResponsePlan {
        guard segments.count == 2, let failures = integer(query["failures"]?.first) else { return badRequest }
        let status = integer(query["status"]?.first, minimum: 100) ?? 503
        let attempt = state.flakyAttempt(for: segments[1])
        var headers = [("X-Attempt", "\(attempt)")]
        guard attempt > failures else {
            if let retryAfter = query["retry-after"]?.first { headers.append(("Retry-After", retryAfter)) }
            return .reply(
                .json(status: status, FlakyReply(key: segments[1], attempt: attempt, failed: true), headers: headers))
        }
        return .reply(.json(FlakyReply(key: segments[1], attempt: attempt, failed: false), headers: headers))
    }

    private static func responseHeaders(_ request: RecordedRequest) -> ResponsePlan {
        var fields = RoutePercentEncoding.parseQueryPairs(request.query)
        let framed = fields.contains {
            $0.0.lowercased() == "content-length" || $0.0.lowercased() == "transfer-encoding"
        }
        if !framed { fields.append(("Content-Length", "0")) }
        return .reply(Reply(status: 200, headers: fields))
    }
}

/// The JSON body of `Endpoint.flaky` replies.
private struct FlakyReply: Encodable {
    let key: String
    let attempt: Int
    let failed: Bool
}
