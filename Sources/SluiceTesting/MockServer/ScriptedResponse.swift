import Foundation
import Sluice

/// One canned reply for a path scripted with `MockServer.script(_:_:)`.
public struct ScriptedResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields, in order; `Content-Length` is added when absent.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Data
    /// How long to wait before replying, if at all.
    public var delay: Duration?

    /// Creates a reply.
    public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data(), delay: Duration? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
    }

    /// A `text/plain; charset=utf-8` reply.
    public static func text(_ text: String, status: Int = 200, delay: Duration? = nil) -> ScriptedResponse {
        ScriptedResponse(
            status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data(text.utf8), delay: delay)
    }

    /// An `application/json` reply whose body is `json`, verbatim.
    public static func json(_ json: String, status: Int = 200, delay: Duration? = nil) -> ScriptedResponse {
        ScriptedResponse(
            status: status, headers: ["Content-Type": "application/json"], body: Data(json.utf8), delay: delay)
    }
}

/// The scripts of one server: each path answers its responses in order, then repeats the last.
struct ScriptBook: Sendable {
    private var scripts: [String: (responses: [ScriptedResponse], next: Int)] = [:]

    /// `path` with exactly one leading slash and no query.
    static func normalize(_ path: String) -> String {
        var path = Substring(path)
        while path.first == "/" { path = path.dropFirst() }
        return "/" + path
    }

    mutating func set(_ path: String, _ responses: [ScriptedResponse]) {
        scripts[Self.normalize(path)] = (responses, 0)
    }

    func contains(_ path: String) -> Bool { scripts[path] != nil }

    /// The next response for `path` (a decoded path), advancing the script; nil when it has none.
    mutating func next(for path: String) -> ScriptedResponse? {
        guard var script = scripts[path], !script.responses.isEmpty else { return nil }
        let response = script.responses[min(script.next, script.responses.count - 1)]
        script.next += 1
        scripts[path] = script
        return response
    }
}
