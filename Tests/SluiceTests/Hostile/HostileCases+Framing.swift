import Foundation
import Sluice
import SluiceTesting

/// Bodies whose end is ambiguous or never comes: each must fail, never arrive as a success with
/// whatever body libcurl made of it.
extension HostileCase {
    static let framing: [HostileCase] = [
        framed(
            "content-lengths-differ", ["Content-Length: 10", "Content-Length: 20"], body: 20,
            .fails(.protocolError, naming: "Content-Length"),
            "Two Content-Lengths that differ are refused (RFC 9112 §6.3), whichever libcurl would believe."),
        framed(
            "content-length-list-differs", ["Content-Length: 10, 20"], body: 20,
            .fails(.protocolError, naming: "Content-Length"), "A Content-Length list whose values differ is refused."),
        framed(
            "content-length-repeated", ["Content-Length: 5", "Content-Length: 5"], body: 5,
            .succeeds(status: 200) { $0.body == Data("aaaaa".utf8) },
            "The same Content-Length twice is one length, and the body ends there."),
        framed(
            "content-length-overflows", ["Content-Length: 99999999999999999999999"], body: 2,
            .fails(.protocolError, naming: "Content-Length"), "A length past 64 bits is refused, not read to the close."
        ),
        framed(
            "content-length-2-pow-63", ["Content-Length: 9223372036854775808"], body: 2,
            .fails(.protocolError, naming: "Content-Length"),
            "A length one past the largest signed 64-bit one is refused."),
        framed(
            "content-length-not-digits", ["Content-Length: 2x"], body: 2,
            .fails(.protocolError, naming: "Content-Length"),
            "A length with a letter is refused, not read by its digits."),
        framed(
            "content-length-negative", ["Content-Length: -1"], body: 2,
            .fails(.protocolError, naming: "Content-Length"), "A negative length is refused."),
        framed(
            "content-length-with-chunked", ["Content-Length: 5", "Transfer-Encoding: chunked"],
            rawBody: "5\r\nhello\r\n0\r\n\r\n", .fails(.protocolError, naming: "Transfer-Encoding"),
            "Content-Length with chunked, the way responses are smuggled, is refused."),
        framed(
            "chunked-with-content-length", ["Transfer-Encoding: chunked", "Content-Length: 5"],
            rawBody: "5\r\nhello\r\n0\r\n\r\n", .fails(.protocolError, naming: "Transfer-Encoding"),
            "The same, the other way round."),
        framed(
            "content-length-with-other-coding", ["Content-Length: 5", "Transfer-Encoding: identity"], body: 5,
            .fails(.protocolError, naming: "Transfer-Encoding"), "Content-Length with any transfer coding is refused."),
        wire(
            "short-body-then-close",
            [.text(head("Content-Length: 1024") + String(repeating: "a", count: 512)), .close],
            .fails(.connectionLost), "A body that ends before its Content-Length is lost, not a short success."),
        wire(
            "short-body-then-reset",
            [.text(head("Content-Length: 1024") + String(repeating: "a", count: 512)), .reset],
            .fails(.connectionLost), "A reset in the middle of the body is a lost connection."),
        wire(
            "close-after-head", [.text(head("Content-Length: 1024")), .close], .fails(.connectionLost),
            "A close right after the head is a lost connection."),
        wire(
            "chunked-without-last-chunk", [.text(head("Transfer-Encoding: chunked") + "5\r\nhello\r\n"), .close],
            .fails(.connectionLost), "A chunked body that closes before its last chunk is not complete."),
        wire(
            "chunk-size-not-hex", [.text(head("Transfer-Encoding: chunked") + "zz\r\nhello\r\n0\r\n\r\n"), .close],
            .fails(.protocolError), "A chunk size that is not hexadecimal is refused."),
        wire(
            "chunk-size-overflows",
            [.text(head("Transfer-Encoding: chunked") + "fffffffffffffffffffff\r\nhello\r\n"), .close],
            .fails(.protocolError), "A chunk size past 64 bits is refused."),
        wire(
            "chunk-longer-than-size",
            [.text(head("Transfer-Encoding: chunked") + "5\r\nhelloworld\r\n0\r\n\r\n"), .close],
            .fails(.protocolError), "Chunk data past its size, where CRLF must follow, is refused."),
        wire(
            "chunked-with-trailers",
            [.text(head("Transfer-Encoding: chunked") + "5\r\nhello\r\n0\r\nX-Checksum: 1\r\n\r\n")],
            .succeeds(status: 200) { $0.body == Data("hello".utf8) },
            "Trailers after the last chunk are read, and the body is exactly its chunks."),
        wire(
            "body-past-content-length", [.text(head("Content-Length: 5") + "helloEXTRA"), .close],
            .succeeds(status: 200) { $0.body == Data("hello".utf8) },
            "Bytes past the Content-Length are not part of the body."),
        wire(
            "read-to-close", [.text(head("Connection: close") + "until the end"), .close],
            .succeeds(status: 200) { $0.body == Data("until the end".utf8) },
            "A body without length or chunks ends at the close, as HTTP/1.1 allows."),
    ]

    /// A 200 with these fields and `body` bytes of "a", then a close.
    private static func framed(
        _ name: String, _ fields: [String], body: Int, _ outcome: Outcome, _ proves: String
    ) -> HostileCase {
        framed(name, fields, rawBody: String(repeating: "a", count: body), outcome, proves)
    }

    private static func framed(
        _ name: String, _ fields: [String], rawBody: String, _ outcome: Outcome, _ proves: String
    ) -> HostileCase {
        let text = (["HTTP/1.1 200 OK"] + fields).map { $0 + "\r\n" }.joined() + "\r\n" + rawBody
        return wire(name, [.text(text), .close], outcome, proves, group: .framing)
    }

    /// A case whose server writes `steps` in reply.
    static func wire(
        _ name: String, _ steps: [WireStep], _ outcome: Outcome, _ proves: String, group: Group = .framing,
        options: @escaping @Sendable (inout RequestOptions) -> Void = { _ in }
    ) -> HostileCase {
        HostileCase(name: name, group: group, proves: proves, server: .wire(steps), outcome: outcome, options: options)
    }
}
