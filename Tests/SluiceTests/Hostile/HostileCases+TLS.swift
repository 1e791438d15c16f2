import Foundation
import Sluice
import SluiceTesting

/// TLS that breaks: in the handshake (a raw listener speaking first, or not at all) and under the
/// body (a MockServer over TLS cutting the connection without close_notify). HTTPS only.
extension HostileCase {
    static let tls: [HostileCase] = [
        handshake(
            "tls-alert-at-hello", [.send(Data([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28])), .close],
            .fails(.tlsFailure), "A handshake_failure alert in answer to the ClientHello is a TLS failure."),
        handshake(
            "tls-plain-http-answer", [.text("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"), .close],
            .fails(.tlsFailure), "A plain HTTP answer where TLS was expected is a TLS failure, not a response."),
        handshake(
            "tls-truncated-record",
            [.send(Data([0x16, 0x03, 0x03, 0x40, 0x00] + Array(repeating: 0x01, count: 10))), .close],
            .fails(.tlsFailure), "A handshake record that ends before its length is a TLS failure."),
        handshake(
            "tls-close-at-hello", [.pause(.milliseconds(50)), .close], .fails(.tlsFailure),
            "A close in answer to the ClientHello is a TLS failure."),
        handshake(
            "tls-reset-at-hello", [.pause(.milliseconds(50)), .reset], .fails(.tlsFailure),
            "A reset in answer to the ClientHello is a TLS failure."),
        handshake(
            "tls-handshake-silent", [.stall], .fails(.timedOut, timeout: .connect),
            "A server that never answers the ClientHello: the handshake is part of connecting, so the connect timeout ends it."
        ),
        handshake(
            "tls-handshake-trickles",
            [.trickle(Data([0x16, 0x03, 0x03, 0x00, 0x40] + Array(repeating: 0x02, count: 64)), every: pace)],
            .fails(.timedOut, timeout: .connect),
            "A handshake record at one byte per 250 ms: the connect timeout ends it."),
        overTLS(
            "tls-body-cut-without-close-notify",
            [.text(head("Content-Length: 1024") + filler(100)), .closeWithoutNotify], .fails(.connectionLost),
            "A body cut by a bare TCP close is lost."),
        overTLS(
            "tls-body-cut-with-close-notify", [.text(head("Content-Length: 1024") + filler(100)), .close],
            .fails(.connectionLost), "A body cut by close_notify before its length is lost too."),
        overTLS(
            "tls-body-reset", [.text(head("Content-Length: 1024") + filler(100)), .reset], .fails(.connectionLost),
            "A body cut by a reset is lost."),
        overTLS(
            "tls-read-to-close-truncated", [.text(head("Connection: close") + filler(100)), .closeWithoutNotify],
            .fails(.connectionLost, naming: "close_notify"),
            "A body read to the close, ended by a TCP close without close_notify, may be an attacker's truncation."),
        overTLS(
            "tls-unchunked-coding-truncated",
            [.text(head("Transfer-Encoding: identity", "Connection: close") + filler(100)), .closeWithoutNotify],
            .fails(.connectionLost, naming: "close_notify"),
            "So may one whose Transfer-Encoding names no chunked coding: it is read to the close too."),
        overTLS(
            "tls-no-content-bare-close",
            [.text(head("Connection: close", status: "HTTP/1.1 204 No Content")), .closeWithoutNotify],
            .succeeds(status: 204) { $0.body.isEmpty },
            "A 204 has no body to cut: a bare close after it is no loss."),
        overTLS(
            "tls-not-modified-bare-close",
            [.text(head("Connection: close", status: "HTTP/1.1 304 Not Modified")), .closeWithoutNotify],
            .succeeds(status: 304) { $0.body.isEmpty }, "Nor has a 304."),
        {
            var headRequest = overTLS(
                "tls-head-bare-close", [.text(head("Connection: close")), .closeWithoutNotify],
                .succeeds(status: 200) { $0.body.isEmpty }, "Nor has the answer to a HEAD.")
            headRequest.send = { $0.head(HostileCase.path) }
            return headRequest
        }(),
        {
            var accepted = overTLS(
                "tls-read-to-close-bare-close-accepted",
                [.text(head("Connection: close") + filler(100)), .closeWithoutNotify],
                .succeeds(status: 200) { $0.body.count == 100 },
                "With `requiresCloseNotify` off, a bare close ends such a body, as browsers take it.")
            accepted.options = { $0.tls.requiresCloseNotify = false }
            return accepted
        }(),
        HostileCase(
            name: "tls-untrusted-certificate", group: .tls,
            proves: "A certificate from an authority the client does not trust is refused, and nothing is sent.",
            server: .neverReached, outcome: .fails(.tlsFailure), schemes: [.https],
            options: { $0.tls.trustRoots = .system }),
    ]

    private static func handshake(_ name: String, _ steps: [WireStep], _ outcome: Outcome, _ proves: String)
        -> HostileCase
    {
        HostileCase(
            name: name, group: .tls, proves: proves, server: .onAccept(steps), outcome: outcome, schemes: [.https])
    }

    private static func overTLS(_ name: String, _ steps: [WireStep], _ outcome: Outcome, _ proves: String)
        -> HostileCase
    {
        var hostileCase = wire(name, steps, outcome, proves, group: .tls)
        hostileCase.schemes = [.https]
        return hostileCase
    }
}
