import Foundation

/// A file served as a download server serves it, for `MockServer.respond(_:with:)`: 200 with the
/// whole body, 206 for one satisfiable `Range` (unless `If-Range` names another validator), 416
/// for a range past the end, with `ETag`, `Last-Modified` and `Accept-Ranges` as set. A reply can
/// reset the connection after some of its body, as a flaky network does.
///
/// ```swift
/// var file = MockDownload(body: MockServer.deterministicBytes(count: 100_000), entityTag: "\"v1\"")
/// server.respond("/file") { request in file.reply(to: request, resettingAfter: 40_000) }
/// ```
public struct MockDownload: Sendable, Equatable {
    /// The content.
    public var body: Data
    /// The `ETag` sent, quotes included (`"v1"`, or `W/"v1"` for a weak one); nil for none.
    public var entityTag: String?
    /// The `Last-Modified` sent; nil for none.
    public var lastModified: String?
    /// Whether `Range` is honoured; when false every GET gets all of the body, as from a server
    /// that serves no ranges.
    public var servesRanges: Bool

    /// Creates a file to serve.
    public init(body: Data, entityTag: String? = nil, lastModified: String? = nil, servesRanges: Bool = true) {
        self.body = body
        self.entityTag = entityTag
        self.lastModified = lastModified
        self.servesRanges = servesRanges
    }

    /// The reply to `request`, as wire steps: the head, then the body, or only its first
    /// `resettingAfter` bytes followed by a TCP reset (nil: all of it).
    public func reply(to request: RecordedRequest, resettingAfter cut: Int? = nil) -> [WireStep] {
        var status = 200
        var fields: [(String, String)] = [("Content-Type", "application/octet-stream")]
        if servesRanges { fields.append(("Accept-Ranges", "bytes")) }
        if let entityTag { fields.append(("ETag", entityTag)) }
        if let lastModified { fields.append(("Last-Modified", lastModified)) }
        var bytes = body
        if servesRanges, request.method == "GET", isCurrent(request.headers["If-Range"]) {
            switch RangeRequest(header: request.headers["Range"], length: body.count) {
            case .whole:
                break
            case .partial(let range):
                status = 206
                fields.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound)/\(body.count)"))
                bytes = body.subdata(in: range.lowerBound..<(range.upperBound + 1))
            case .unsatisfiable:
                status = 416
                fields.append(("Content-Range", "bytes */\(body.count)"))
                bytes = Data()
            }
        }
        fields.append(("Content-Length", "\(bytes.count)"))
        let reason = status == 200 ? "OK" : status == 206 ? "Partial Content" : "Range Not Satisfiable"
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        if request.method == "HEAD" { return [.text(head)] }
        guard let cut, cut < bytes.count else { return [.text(head), .send(bytes)] }
        return [.text(head), .send(bytes.prefix(max(0, cut))), .reset]
    }

    /// Whether an `If-Range` (or its absence) lets a range be served: it must be this file's
    /// strong entity tag or its date, exactly.
    private func isCurrent(_ validator: String?) -> Bool {
        guard let validator = validator?.trimmingWhitespace() else { return true }
        if let entityTag, !entityTag.hasPrefix("W/"), validator == entityTag { return true }
        if let lastModified, validator == lastModified { return true }
        return false
    }
}
