import FoundationEssentials

/// How one transfer went, as libcurl measured it. Times are from the start of the transfer.
///
/// libcurl measures times in whole microseconds, and the metrics keep them so: a `Duration` is
/// made when a time is read, and a time set is kept to the microsecond. (Making five `Duration`s
/// for every response cost more than the rest of reading its metrics, for times few read.)
public struct TransferMetrics: Sendable, Equatable {
    /// The times in microseconds, as libcurl reports them.
    var nameLookupMicroseconds: Int64 = 0
    var connectMicroseconds: Int64 = 0
    var tlsHandshakeMicroseconds: Int64 = 0
    var timeToFirstByteMicroseconds: Int64 = 0
    var totalMicroseconds: Int64 = 0
    var redirectMicroseconds: Int64 = 0

    /// Time until the host name was resolved.
    public var nameLookup: Duration {
        get { .microseconds(nameLookupMicroseconds) }
        set { nameLookupMicroseconds = newValue.wholeMicroseconds }
    }
    /// Time until the TCP connection was made.
    public var connect: Duration {
        get { .microseconds(connectMicroseconds) }
        set { connectMicroseconds = newValue.wholeMicroseconds }
    }
    /// Time until the TLS handshake finished (zero for plain HTTP).
    public var tlsHandshake: Duration {
        get { .microseconds(tlsHandshakeMicroseconds) }
        set { tlsHandshakeMicroseconds = newValue.wholeMicroseconds }
    }
    /// Time until the first response byte arrived.
    public var timeToFirstByte: Duration {
        get { .microseconds(timeToFirstByteMicroseconds) }
        set { timeToFirstByteMicroseconds = newValue.wholeMicroseconds }
    }
    /// Time for the whole transfer.
    public var total: Duration {
        get { .microseconds(totalMicroseconds) }
        set { totalMicroseconds = newValue.wholeMicroseconds }
    }
    /// Time spent following redirects inside libcurl (zero: Sluice follows redirects itself).
    public var redirect: Duration {
        get { .microseconds(redirectMicroseconds) }
        set { redirectMicroseconds = newValue.wholeMicroseconds }
    }
    /// Body bytes sent.
    public var bytesSent: Int64 = 0
    /// Body bytes received (decoded).
    public var bytesReceived: Int64 = 0
    /// The HTTP version used.
    public var httpVersion: HTTPVersion = .http1_1
    /// Whether an existing connection was reused.
    public var reusedConnection = false
    /// The remote address and port, e.g. `127.0.0.1:8080`.
    public var remoteAddress: String? = nil
    /// The TLS version negotiated, e.g. `TLSv1.3`; nil for plain HTTP.
    public var tlsVersion: String? = nil
    /// The TLS cipher suite negotiated, e.g. `TLS_AES_256_GCM_SHA384`; nil for plain HTTP.
    public var tlsCipher: String? = nil
    /// The protocol chosen by ALPN, e.g. `h2` or `http/1.1`; nil for plain HTTP or without ALPN.
    public var alpnProtocol: String? = nil

    /// Empty metrics.
    public init() {}
}

/// Progress of an upload or a download.
public struct TransferProgress: Sendable, Equatable {
    /// Bytes moved so far.
    public var completed: Int64
    /// Bytes expected in all, if known.
    public var expected: Int64?

    /// Creates a progress value.
    public init(completed: Int64, expected: Int64?) {
        self.completed = completed
        self.expected = expected
    }

    /// The fraction done, from 0 to 1, if the total is known.
    public var fraction: Double? {
        guard let expected, expected > 0 else { return nil }
        return min(1, Double(completed) / Double(expected))
    }
}
