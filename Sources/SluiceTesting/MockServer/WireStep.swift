import Foundation

/// One step of a reply written byte for byte, below HTTP (and above TLS): for responses no
/// well-behaved server sends, stalls at a chosen byte and abrupt ends. Scripted with
/// `MockServer.script(_:wire:)`.
///
/// ```swift
/// server.script("/smuggle", wire: .text("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
///     + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), .close)
/// server.script("/slow-head", wire: .text("HTTP/1.1 200 OK\r\n"), .stall)
/// ```
///
/// After the last step the connection serves its next request, unless a step ended it.
public enum WireStep: Sendable, Equatable {
    /// Writes these bytes at once.
    case send(Data)
    /// Writes these bytes one at a time, one every `interval`, the first at once.
    case trickle(Data, every: Duration)
    /// Waits before the next step.
    case pause(Duration)
    /// Closes the connection (over TLS, after a close_notify alert).
    case close
    /// Closes the connection with a TCP FIN alone: over TLS, without the close_notify alert that
    /// tells a client the data is complete (a truncation).
    case closeWithoutNotify
    /// Resets the connection: TCP RST, no close_notify.
    case reset
    /// Sends nothing more and keeps the connection open until the client or `shutdown()` closes it.
    case stall

    /// Writes `text` as UTF-8 at once.
    public static func text(_ text: String) -> WireStep { .send(Data(text.utf8)) }
}
