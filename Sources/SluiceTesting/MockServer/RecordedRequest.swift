import Foundation
import Sluice

/// A request as `MockServer` received it, recorded once its body has fully arrived.
public struct RecordedRequest: Sendable {
    /// The method, e.g. `"GET"`.
    public let method: String
    /// The request target as sent, e.g. `"/echo?a=1"`.
    public let target: String
    /// The path of the target, percent-encoded as sent, without the query.
    public let path: String
    /// The query string as sent, without `?`, if there was one.
    public let query: String?
    /// The query parsed into values per name (`+` and percent escapes decoded).
    public let queryItems: [String: [String]]
    /// The HTTP version, e.g. `"HTTP/1.1"`.
    public let httpVersion: String
    /// The header fields, in the order they arrived.
    public let headers: HTTPHeaders
    /// The body, when it was at most `MockServer.recordedBodyLimit` bytes; empty otherwise.
    public let body: Data
    /// Whether `body` holds the whole body (false when it was longer than `MockServer.recordedBodyLimit`).
    public let isBodyRecorded: Bool
    /// The body's length in bytes, whatever its size.
    public let bodyLength: Int
    /// The body's checksum (see `MockServer.checksum(of:)`), whatever its size.
    public let bodyChecksum: String
    /// The server's number for the TCP connection (1, 2, …): equal numbers mean a reused connection.
    public let connectionID: Int
    /// The client's port of that connection.
    public let remotePort: Int
    /// The request's position among all requests this server recorded (1, 2, …).
    public let sequenceNumber: Int

    /// The body as UTF-8 text, or nil when it is not valid UTF-8.
    public var bodyText: String? { String(data: body, encoding: .utf8) }
}

/// The parts of a request a connection collects before it is recorded.
struct IncomingRequest {
    var method: String
    var target: String
    var httpVersion: String
    var headers: [(String, String)]
    var keepAlive: Bool
    var body = Data()
    var bodyLength = 0
    var checksum = MockServer.Checksum()

    /// Appends a piece of the body; keeps the bytes only while the total stays within `limit`.
    mutating func append(_ bytes: UnsafeRawBufferPointer, limit: Int) {
        bodyLength += bytes.count
        checksum.update(bytes)
        if bodyLength <= limit, let base = bytes.baseAddress {
            body.append(base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        } else if !body.isEmpty {
            body = Data()
        }
    }

    func recorded(connectionID: Int, remotePort: Int, sequenceNumber: Int, limit: Int) -> RecordedRequest {
        let (path, query) = RoutePercentEncoding.splitTarget(target)
        return RecordedRequest(
            method: method, target: target, path: path, query: query,
            queryItems: RoutePercentEncoding.parseQuery(query),
            httpVersion: httpVersion, headers: HTTPHeaders(headers), body: body, isBodyRecorded: bodyLength <= limit,
            bodyLength: bodyLength, bodyChecksum: checksum.value, connectionID: connectionID, remotePort: remotePort,
            sequenceNumber: sequenceNumber)
    }
}
