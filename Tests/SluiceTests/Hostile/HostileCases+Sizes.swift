import Foundation
import Sluice
import SluiceTesting

/// Heads and bodies too large to hold: each stops at its limit (64 KiB of header, 1 MiB of body
/// here), with the error that names the limit, however the server goes on.
extension HostileCase {
    static let sizes: [HostileCase] = [
        size(
            "header-line-200-kib", [.text("HTTP/1.1 200 OK\r\nX-Big: " + filler(200 << 10) + "\r\n\r\n"), .close],
            .fails(.headersTooLarge, naming: "per line"),
            "A header line past libcurl's 100 KiB line limit is too large, not out of memory."),
        size(
            "header-fields-past-limit", [.text("HTTP/1.1 200 OK\r\n" + fields(5_000) + "Content-Length: 0\r\n\r\n")],
            .fails(.headersTooLarge, naming: "65536"), "Many small fields past the header limit are too large."),
        size(
            "header-fields-endless", [.text("HTTP/1.1 200 OK\r\n" + fields(50_000)), .stall],
            .fails(.headersTooLarge, naming: "65536"),
            "A head that never ends stops at the limit, not at a timeout."),
        size(
            "interim-responses-flood",
            [.text(String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 10_000)), .stall],
            .fails(.headersTooLarge),
            "Ten thousand 100 Continue heads count against the header limit together."),
        size(
            "interim-response-fields-flood",
            [
                .text(
                    "HTTP/1.1 103 Early Hints\r\n" + fields(5_000) + "\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
            ],
            .fails(.headersTooLarge), "An interim head past the limit is too large, like a final one."),
        size(
            "trailer-fields-past-limit",
            [.text(head("Transfer-Encoding: chunked") + "2\r\nok\r\n0\r\n" + fields(5_000) + "\r\n"), .close],
            .fails(.headersTooLarge), "Trailer fields past the header limit are too large."),
        size(
            "chunk-extension-flood",
            [.text(head("Transfer-Encoding: chunked") + "2;" + filler(2 << 20) + "\r\nok\r\n0\r\n\r\n"), .close],
            .succeeds(status: 200) { $0.body == Data("ok".utf8) },
            "A chunk extension of megabytes is skipped as it streams past, not buffered: the body is its chunks."),
        size(
            "body-past-limit", [.text(head("Content-Length: \(2 << 20)")), .send(Data(count: 2 << 20)), .close],
            .fails(.responseTooLarge, naming: "1048576"), "A body past the limit stops at the limit."),
        size(
            "announced-length-past-limit", [.text(head("Content-Length: \(4 << 30)") + "only this"), .stall],
            .fails(.responseTooLarge), "A Content-Length past the limit fails at once, before any body is read."),
        size(
            "chunked-body-endless",
            [.text(head("Transfer-Encoding: chunked")), .send(Data(chunks(64, of: 32 << 10).utf8)), .stall],
            .fails(.responseTooLarge, naming: "1048576"), "A chunked body past the limit stops at the limit."),
        size(
            "body-to-close-past-limit", [.text(head("Connection: close")), .send(Data(count: 2 << 20)), .close],
            .fails(.responseTooLarge, naming: "1048576"), "A body read to the close stops at the limit too."),
    ]

    private static func size(_ name: String, _ steps: [WireStep], _ outcome: Outcome, _ proves: String) -> HostileCase {
        wire(name, steps, outcome, proves, group: .sizes)
    }

    /// `count` bytes of "a".
    static func filler(_ count: Int) -> String { String(repeating: "a", count: count) }

    /// `count` field lines of about 24 bytes each, `X-F-N: aaaaaaaaaaaa`.
    static func fields(_ count: Int) -> String {
        (0..<count).map { "X-F-\($0): aaaaaaaaaaaa\r\n" }.joined()
    }

    /// `count` chunks of `size` bytes of "a", without the last chunk.
    static func chunks(_ count: Int, of size: Int) -> String {
        let chunk = String(size, radix: 16) + "\r\n" + filler(size) + "\r\n"
        return String(repeating: chunk, count: count)
    }
}
