import Foundation
import Sluice
import SluiceTesting

/// A server that stops, or sends a byte at a time, at every phase of an exchange: the timeout
/// meant for that phase ends it (connect 2 s, idle 2 s, total 4 s here), reported as that
/// timeout; a slow server that keeps sending is never cut off by the idle timeout.
extension HostileCase {
    static let stalls: [HostileCase] = [
        HostileCase(
            name: "connect-never-accepted", group: .stalls,
            proves: "A listener whose queue is full never completes the connect: the connect timeout ends it.",
            server: .fullBacklog, outcome: .fails(.timedOut, timeout: .connect)),
        HostileCase(
            name: "request-body-never-read", group: .stalls,
            proves: "A server that never reads a large upload: the idle timeout ends it once the buffers fill.",
            server: .onAccept([.stall]), outcome: .fails(.timedOut, timeout: .idle), schemes: [.http],
            send: { $0.send(HostileCase.upload($0)) }),
        stall("reply-never-comes", [.stall], "A request read but never answered: the idle timeout ends it."),
        stall("status-line-stalls", [.text("HTTP/1.1 2"), .stall], "A status line that stops halfway."),
        stall(
            "head-stalls", [.text("HTTP/1.1 200 OK\r\nContent-Length: 10\r\nX-A: b"), .stall],
            "A head that stops before its blank line."),
        stall(
            "interim-then-stall", [.text("HTTP/1.1 100 Continue\r\n\r\n"), .stall],
            "A 100 Continue, then nothing: the interim head is no answer."),
        stall("body-stalls", [.text(head("Content-Length: 100") + "0123456789"), .stall], "A body that stops."),
        stall(
            "chunk-size-stalls", [.text(head("Transfer-Encoding: chunked") + "5\r\nhello\r\n1"), .stall],
            "A chunk size that stops halfway."),
        stall(
            "chunk-data-stalls", [.text(head("Transfer-Encoding: chunked") + "a\r\nhel"), .stall],
            "Chunk data that stops."),
        stall(
            "last-chunk-stalls", [.text(head("Transfer-Encoding: chunked") + "5\r\nhello\r\n0\r\n"), .stall],
            "The last chunk with no end of trailers."),
        stall(
            "trailers-stall", [.text(head("Transfer-Encoding: chunked") + "5\r\nhello\r\n0\r\nX-T: 1\r\n"), .stall],
            "A trailer section that stops."),
        trickle(
            "status-line-trickles", [.trickle(Data(("HTTP/1.1 200 OK\r\nX-Slow: " + filler(40)).utf8), every: pace)],
            "A status line at one byte per 250 ms: bytes move, so only the total timeout ends it."),
        trickle(
            "head-trickles",
            [.text("HTTP/1.1 200 OK\r\n"), .trickle(Data(("X-Slow: " + filler(40) + "\r\n\r\n").utf8), every: pace)],
            "Header bytes at one per 250 ms: the idle timer counts bytes, not lines, so the total timeout ends it."),
        trickle(
            "body-trickles", [.text(head("Content-Length: 100")), .trickle(Data(filler(100).utf8), every: pace)],
            "Body bytes at one per 250 ms."),
        trickle(
            "chunks-trickle",
            [.text(head("Transfer-Encoding: chunked")), .trickle(Data(chunks(20, of: 1).utf8), every: pace)],
            "Chunked framing at one byte per 250 ms."),
        HostileCase(
            name: "pauses-shorter-than-idle", group: .stalls,
            proves: "Three pauses of 1.2 s, each under the idle timeout, add up past it: the transfer completes.",
            server: .wire([
                .text(head("Content-Length: 3") + "a"), .pause(.milliseconds(1200)), .text("b"),
                .pause(.milliseconds(1200)), .text("c"),
            ]),
            outcome: .succeeds(status: 200) { $0.body == Data("abc".utf8) }, options: { $0.timeout = .seconds(8) }),
    ]

    /// One byte per 250 ms: well inside the idle timeout.
    static let pace = Duration.milliseconds(250)

    private static func stall(_ name: String, _ steps: [WireStep], _ proves: String) -> HostileCase {
        wire(name, steps, .fails(.timedOut, timeout: .idle), proves + " The idle timeout ends it.", group: .stalls)
    }

    private static func trickle(_ name: String, _ steps: [WireStep], _ proves: String) -> HostileCase {
        wire(name, steps, .fails(.timedOut, timeout: .total), proves, group: .stalls)
    }

    /// A POST of 64 MiB, more than the socket buffers on both sides hold.
    static func upload(_ client: Client) -> Request {
        // swift-format-ignore: NeverUseForceTry
        var request = try! client.makeRequest(.post, path)
        request.body = .data(Data(count: 64 << 20))
        return request
    }
}
