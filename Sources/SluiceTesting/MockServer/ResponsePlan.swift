import Foundation
internal import NIOCore
import Sluice

/// What the router decided to do with a request; the connection handler carries it out.
enum ResponsePlan {
    /// A well-formed reply.
    case reply(Reply)
    /// A gzip reply whose body is compressed (or fetched from the cache) off the event loop first.
    case gzip(GzipBodies.Content, headers: [(String, String)])
    /// Connection-level misbehaviour.
    case fault(Fault)
    /// Bytes, pauses and ends written verbatim.
    case wire([WireStep])
}

/// A status, header fields and a body, possibly after a delay.
struct Reply {
    var status: Int
    var headers: [(String, String)]
    var body: ReplyBody
    var delay: Duration?

    init(status: Int, headers: [(String, String)] = [], body: ReplyBody = .empty, delay: Duration? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
    }

    /// A reply with a body in memory and its `Content-Length`.
    static func buffer(status: Int, contentType: String?, _ bytes: ByteBuffer, headers: [(String, String)] = [])
        -> Reply
    {
        var fields = headers
        if let contentType { fields.append(("Content-Type", contentType)) }
        fields.append(("Content-Length", "\(bytes.readableBytes)"))
        return Reply(status: status, headers: fields, body: .buffer(bytes))
    }

    /// A JSON reply encoding `value` with sorted keys.
    static func json(status: Int = 200, _ value: some Encodable, headers: [(String, String)] = []) -> Reply {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return buffer(status: status, contentType: "application/json", ByteBuffer(bytes: data), headers: headers)
    }

    /// A `text/plain` reply.
    static func text(status: Int = 200, _ text: String, headers: [(String, String)] = []) -> Reply {
        buffer(status: status, contentType: "text/plain; charset=utf-8", ByteBuffer(string: text), headers: headers)
    }

    /// The reply a script gave; `Content-Length` is added unless the script framed the body itself.
    init(_ scripted: ScriptedResponse) {
        var fields = scripted.headers.map { ($0.name, $0.value) }
        if !scripted.headers.contains("Content-Length") && !scripted.headers.contains("Transfer-Encoding") {
            fields.append(("Content-Length", "\(scripted.body.count)"))
        }
        self.init(
            status: scripted.status, headers: fields, body: .buffer(ByteBuffer(bytes: scripted.body)),
            delay: scripted.delay)
    }
}

/// How a reply's body is produced.
enum ReplyBody {
    /// No body bytes.
    case empty
    /// Bytes in memory, written at once.
    case buffer(ByteBuffer)
    /// One write per buffer (with `Transfer-Encoding: chunked`, one HTTP chunk each).
    case chunks([ByteBuffer])
    /// `count` deterministic bytes from `offset`, streamed with backpressure in writes of `writeSize`; nil `count` is endless.
    case deterministic(offset: Int, count: Int?, writeSize: Int)
    /// `count` deterministic bytes in `chunks` writes, one every `interval`.
    case drip(count: Int, chunks: Int, interval: Duration)
    /// These buffers, one write every `interval` (the first after one interval too).
    case paced([ByteBuffer], interval: Duration)
}
