import Foundation
import Sluice
import SluiceTesting

/// Status lines and header fields that break the grammar.
extension HostileCase {
    static let heads: [HostileCase] = [
        head(
            "empty-reply", [.close], .fails(.connectionLost),
            "A close before any byte of the reply is a lost connection."),
        head(
            "reset-before-reply", [.reset], .fails(.connectionLost), "A reset before any byte is a lost connection."),
        head(
            "status-code-not-digits", [.text("HTTP/1.1 2OO OK\r\nContent-Length: 2\r\n\r\nok"), .close],
            .fails(.protocolError), "A status code with letters is refused."),
        head(
            "status-code-two-digits", [.text("HTTP/1.1 20 OK\r\nContent-Length: 2\r\n\r\nok"), .close],
            .fails(.protocolError), "A status code of two digits is refused."),
        head(
            "status-code-four-digits", [.text("HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\nok"), .close],
            .fails(.protocolError), "A status code of four digits is refused."),
        head(
            "http-0.9-reply", [.text("hello, no status line\r\n"), .close], .fails(.protocolError),
            "A reply without a status line (HTTP/0.9) is refused."),
        head(
            "unknown-http-version", [.text("HTTP/7.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), .close],
            .fails(.protocolError), "A version that is not HTTP/1.x is refused on an HTTP/1.1 connection."),
        head(
            "folded-field", [.text("HTTP/1.1 200 OK\r\nX-A: one\r\n two\r\nContent-Length: 2\r\n\r\nok")],
            .succeeds(status: 200) { $0.headers["X-A"] == "one two" },
            "An obsolete folded line is joined to its field with one space, never dropped (RFC 9112 §5.2)."),
        head(
            "fold-before-any-field", [.text("HTTP/1.1 200 OK\r\n two\r\nContent-Length: 2\r\n\r\nok"), .close],
            .fails(.protocolError), "A continuation line with no field before it is refused."),
        head(
            "nul-in-field-value", [.text("HTTP/1.1 200 OK\r\nX-A: a\u{0}b\r\nContent-Length: 2\r\n\r\nok"), .close],
            .fails(.protocolError), "A NUL inside a field is refused."),
        head(
            "bare-lf-line-ends", [.text("HTTP/1.1 200 OK\nContent-Length: 2\nX-A: b\n\nok")],
            .succeeds(status: 200) { $0.body == Data("ok".utf8) && $0.headers["X-A"] == "b" },
            "Lines ended by LF alone are read as lines, as RFC 9112 §2.2 allows a recipient to."),
        head(
            "two-locations-differ",
            [.text("HTTP/1.1 302 Found\r\nLocation: /a\r\nLocation: /b\r\nContent-Length: 0\r\n\r\n")],
            .fails(.redirectFailed, naming: "\"/a\" and \"/b\""),
            "A redirect to two different places is followed to neither."),
        head(
            "no-content-with-body", [.text("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello"), .close],
            .succeeds(status: 204) { $0.body.isEmpty }, "A 204 has no body, whatever its fields announce."),
        head(
            "head-of-not-modified-with-body",
            [.text("HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\nhello"), .close],
            .succeeds(status: 304) { $0.body.isEmpty }, "A 304 has no body, whatever its fields announce."),
        head(
            "switching-protocols-unasked",
            [.text("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"), .stall],
            .fails(.protocolError), "A 101 for an upgrade that was never asked for is refused at once."),
        head(
            "interim-then-final",
            [
                .text(
                    "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s>\r\n\r\n"
                        + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            ],
            .succeeds(status: 200) { $0.body == Data("ok".utf8) }, "Interim 1xx responses are skipped to the final one."
        ),
    ]

    private static func head(_ name: String, _ steps: [WireStep], _ outcome: Outcome, _ proves: String) -> HostileCase {
        wire(name, steps, outcome, proves, group: .heads)
    }
}
