import Foundation

extension MockServer {
    /// The URL of `endpoint` on this server, with `query` items appended (percent-encoded).
    public func url(for endpoint: Endpoint, query: [URLQueryItem] = []) -> URL {
        let target = endpoint.target
        let pairs = target.query + query.map { ($0.name, $0.value ?? "") }
        var string = baseURL.absoluteString
        string.removeLast()  // the trailing slash: every route path starts with one
        string += target.path
        if !pairs.isEmpty { string += "?" + RoutePercentEncoding.query(pairs) }
        return URL(string: string)!
    }

    /// Makes `path` answer `responses` in order, then repeat the last; replaces any earlier script for it.
    ///
    /// Scripted paths take precedence over built-in routes; `url(for: .scripted(path: path))` is their URL.
    public func script(_ path: String, _ responses: ScriptedResponse...) {
        state.script(path, responses)
    }

    /// Makes `path` answer `responses` in order, then repeat the last; replaces any earlier script for it.
    public func script(_ path: String, _ responses: [ScriptedResponse]) {
        state.script(path, responses)
    }

    /// Makes `path` answer every request with `steps`, written verbatim (see `WireStep`); replaces
    /// any earlier wire script for it. Wire scripts win over scripted replies and built-in routes.
    public func script(_ path: String, wire steps: WireStep...) {
        state.script(path, wire: steps)
    }

    /// Makes `path` answer every request with `steps`, written verbatim (see `WireStep`).
    public func script(_ path: String, wire steps: [WireStep]) {
        state.script(path, wire: steps)
    }

    /// Makes `path` answer each request with the steps `handler` returns for it, written verbatim
    /// (see `WireStep`): replies that depend on the request, such as a `MockDownload`'s ranges.
    /// Wire scripts (`script(_:wire:)`) for the same path win; handlers win over everything else.
    /// The handler runs on the server's event loop: it must not block.
    ///
    /// ```swift
    /// let file = MockDownload(body: bytes, entityTag: "\"v1\"")
    /// server.respond("/file") { request in file.reply(to: request, resettingAfter: 1000) }
    /// ```
    public func respond(_ path: String, with handler: @escaping @Sendable (RecordedRequest) -> [WireStep]) {
        state.respond(path, handler: handler)
    }
}
