/// When an event stream connects again after its connection ended or failed (WHATWG's
/// "reestablish the connection").
///
/// The wait is the server's `retry` time when it sent one, else `delay`; after connections that
/// failed without a response, it doubles for each failure in a row, up to `maximumDelay`. A
/// connection that got its response resets the count.
public struct EventStreamReconnection: Sendable, Equatable {
    /// The wait before connecting again, until the server names one with `retry`.
    public var delay: Duration
    /// The longest wait after failed connections.
    public var maximumDelay: Duration
    /// How many connections may fail in a row (no response, or a network error) before the stream
    /// fails with the last error; nil to keep trying.
    public var maximumFailures: Int?
    /// Whether to connect again at all; when false, the stream ends with its first connection.
    public var isEnabled: Bool

    /// Creates a policy.
    public init(
        delay: Duration = .seconds(3), maximumDelay: Duration = .seconds(60), maximumFailures: Int? = 10,
        isEnabled: Bool = true
    ) {
        self.delay = delay
        self.maximumDelay = maximumDelay
        self.maximumFailures = maximumFailures
        self.isEnabled = isEnabled
    }

    /// Three seconds (or the server's `retry`), doubling after failures up to a minute; ten
    /// failures in a row end the stream.
    public static let `default` = EventStreamReconnection()

    /// No reconnection: the stream ends when its one connection does.
    public static let never = EventStreamReconnection(isEnabled: false)

    /// The wait before the next connection after `failures` failed connections in a row.
    func wait(serverRetry: Duration?, failures: Int) -> Duration {
        let base = serverRetry ?? delay
        guard failures > 1 else { return base }
        var wait = base
        for _ in 1..<failures where wait < maximumDelay { wait *= 2 }
        return min(wait, maximumDelay)
    }
}
