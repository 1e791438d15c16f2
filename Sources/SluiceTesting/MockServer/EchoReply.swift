import Foundation

/// The JSON body of `Endpoint.echo` (and `.delay`, `.redirectChain`'s last hop): what the server saw.
public struct EchoReply: Codable, Sendable, Equatable {
    /// The method, e.g. `"POST"`.
    public let method: String
    /// The path, percent-encoded as sent.
    public let path: String
    /// The query string as sent, without `?`.
    public let query: String?
    /// The query parsed into values per name.
    public let queryItems: [String: [String]]
    /// The header fields in order, each as `[name, value]`.
    public let headers: [[String]]
    /// The body as UTF-8 text, when it is valid UTF-8 and at most `MockServer.echoedBodyLimit` bytes.
    public let body: String?
    /// The body in base64, when it is at most `MockServer.echoedBodyLimit` bytes.
    public let bodyBase64: String?
    /// The body's length in bytes.
    public let bodyLength: Int
    /// The body's checksum (see `MockServer.checksum(of:)`).
    public let bodyChecksum: String
    /// The HTTP version, e.g. `"HTTP/1.1"`.
    public let httpVersion: String
    /// The server's number for the connection (equal numbers mean a reused connection).
    public let connectionID: Int

    /// The first value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.count == 2 && $0[0].lowercased() == name.lowercased() }?[1]
    }

    /// The body decoded from base64.
    public var bodyData: Data? { bodyBase64.flatMap { Data(base64Encoded: $0) } }

    init(_ request: RecordedRequest) {
        method = request.method
        path = request.path
        query = request.query
        queryItems = request.queryItems
        headers = request.headers.map { [$0.name, $0.value] }
        let echoed = request.isBodyRecorded && request.bodyLength <= MockServer.echoedBodyLimit
        body = echoed ? String(data: request.body, encoding: .utf8) : nil
        bodyBase64 = echoed ? request.body.base64EncodedString() : nil
        bodyLength = request.bodyLength
        bodyChecksum = request.bodyChecksum
        httpVersion = request.httpVersion
        connectionID = request.connectionID
    }
}
