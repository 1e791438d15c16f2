internal import NIOCore
import Sluice

/// Routes that serve bodies: deterministic bytes, drips, chunked, gzip and ranges.
extension MockRouter {
    static let octetStream = ("Content-Type", "application/octet-stream")

    static func bytes(_ segments: [String]) -> ResponsePlan {
        guard segments.count == 2, let count = integer(segments[1]) else { return badRequest }
        return .reply(
            Reply(
                status: 200,
                headers: [
                    octetStream, ("Content-Length", "\(count)"),
                    ("X-Checksum", MockServer.deterministicChecksum(count: count)),
                ],
                body: .deterministic(offset: 0, count: count, writeSize: DeterministicBytes.blockLength)))
    }

    static func drip(_ query: [String: [String]]) -> ResponsePlan {
        guard let count = integer(query["bytes"]?.first), let chunks = integer(query["chunks"]?.first, minimum: 1),
            let interval = integer(query["interval"]?.first)
        else { return badRequest }
        return .reply(
            Reply(
                status: 200,
                headers: [
                    octetStream, ("Content-Length", "\(count)"),
                    ("X-Checksum", MockServer.deterministicChecksum(count: count)),
                ],
                body: .drip(count: count, chunks: chunks, interval: .milliseconds(interval))))
    }

    /// Server-Sent Events `n` = 1…count, one every `interval`, after the `Last-Event-ID` the
    /// request sends; 204 once there are none left (the standard's "stop reconnecting").
    static func events(_ query: [String: [String]], request: RecordedRequest) -> ResponsePlan {
        guard let count = integer(query["count"]?.first), let interval = integer(query["interval"]?.first) else {
            return badRequest
        }
        let first = (request.headers["Last-Event-ID"].flatMap { Int($0) } ?? 0) + 1
        guard first <= count else { return .reply(Reply(status: 204, headers: [], body: .empty)) }
        let events = (first...count).map { n in
            ByteBuffer(string: "id: \(n)\nevent: tick\ndata: {\"n\":\(n)}\n\n")
        }
        return .reply(
            Reply(
                status: 200,
                headers: [
                    ("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"),
                    ("Transfer-Encoding", "chunked"),
                ],
                body: .paced([ByteBuffer(string: "retry: \(interval)\n\n")] + events, interval: .milliseconds(interval))
            ))
    }

    static func chunked(_ query: [String: [String]]) -> ResponsePlan {
        let chunks = (query["chunk"] ?? []).filter { !$0.isEmpty }.map { ByteBuffer(string: $0) }
        return .reply(
            Reply(
                status: 200,
                headers: [("Content-Type", "text/plain; charset=utf-8"), ("Transfer-Encoding", "chunked")],
                body: .chunks(chunks)))
    }

    static func chunkedBytes(_ query: [String: [String]]) -> ResponsePlan {
        guard let count = integer(query["count"]?.first), let size = integer(query["size"]?.first, minimum: 1) else {
            return badRequest
        }
        return .reply(
            Reply(
                status: 200,
                headers: [
                    octetStream, ("Transfer-Encoding", "chunked"),
                    ("X-Checksum", MockServer.deterministicChecksum(count: count * size)),
                ],
                body: .deterministic(offset: 0, count: count * size, writeSize: size)))
    }

    static func gzip(_ segments: [String]) -> ResponsePlan {
        guard segments.count == 2, let count = integer(segments[1]) else { return badRequest }
        let isBomb = segments[0] == "gzip-bomb"
        let checksum =
            isBomb ? MockServer.zeroBytesChecksum(count: count) : MockServer.deterministicChecksum(count: count)
        return .gzip(
            isBomb ? .zeros(count: count) : .deterministic(count: count),
            headers: [
                octetStream, ("Content-Encoding", "gzip"), ("X-Decoded-Length", "\(count)"),
                ("X-Checksum", checksum),
            ])
    }

    static func range(_ segments: [String], request: RecordedRequest) -> ResponsePlan {
        guard segments.count == 2, let length = integer(segments[1]) else { return badRequest }
        let etag = "\"sluice-range-\(length)\""
        let lastModified = "Wed, 01 Jan 2025 00:00:00 GMT"
        var headers = [octetStream, ("Accept-Ranges", "bytes"), ("ETag", etag), ("Last-Modified", lastModified)]
        var range = RangeRequest(header: request.headers["Range"], length: length)
        if let validator = request.headers["If-Range"]?.trimmingWhitespace(), validator != etag,
            validator != lastModified
        {
            range = .whole
        }
        switch range {
        case .whole:
            headers += [
                ("Content-Length", "\(length)"), ("X-Checksum", MockServer.deterministicChecksum(count: length)),
            ]
            return .reply(
                Reply(
                    status: 200, headers: headers,
                    body: .deterministic(offset: 0, count: length, writeSize: DeterministicBytes.blockLength)))
        case .partial(let bytes):
            headers += [
                ("Content-Range", "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(length)"),
                ("Content-Length", "\(bytes.count)"),
                ("X-Checksum", MockServer.deterministicChecksum(count: bytes.count, offset: bytes.lowerBound)),
            ]
            return .reply(
                Reply(
                    status: 206, headers: headers,
                    body: .deterministic(
                        offset: bytes.lowerBound, count: bytes.count, writeSize: DeterministicBytes.blockLength)))
        case .unsatisfiable:
            headers += [("Content-Range", "bytes */\(length)"), ("Content-Length", "0")]
            return .reply(Reply(status: 416, headers: headers))
        }
    }
}
