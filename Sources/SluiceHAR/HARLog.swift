import FoundationEssentials

/// A HAR 1.2 document (the HTTP Archive format browsers' developer tools export and open), as
/// far as an HTTP client fills it in: one entry per transfer, no pages, no cache information.
///
/// The field names are the format's own (http://www.softwareishard.com/blog/har-12-spec/); sizes
/// and times a client cannot know are -1, as the format asks.
public struct HARDocument: Codable, Sendable, Equatable {
    /// The log.
    public var log: HARLog
}

/// The log of a HAR document.
public struct HARLog: Codable, Sendable, Equatable {
    /// Always `1.2`.
    public var version = "1.2"
    /// The program that wrote the log.
    public var creator = HARCreator(name: "Sluice", version: "1")
    /// The transfers, in the order they started.
    public var entries: [HAREntry]
}

/// The program that wrote a HAR log.
public struct HARCreator: Codable, Sendable, Equatable {
    /// Its name.
    public var name: String
    /// Its version.
    public var version: String
}

/// One transfer: a request and its response, with timings.
public struct HAREntry: Codable, Sendable, Equatable {
    /// When the transfer started, in ISO 8601 with milliseconds.
    public var startedDateTime: String
    /// The transfer's total time in milliseconds.
    public var time: Double
    /// The request, as sent.
    public var request: HARRequest
    /// The response (status 0 when none arrived; see `_error`).
    public var response: HARResponse
    /// Always empty: a client's cache is not described.
    public var cache = HARCache()
    /// The phases of the transfer, from libcurl's metrics.
    public var timings: HARTimings
    /// The server's IP address, when known.
    public var serverIPAddress: String?
    /// Why the transfer failed, when it did (a custom field: custom fields start with `_`).
    public var _error: String?
}

/// A request of a HAR entry.
public struct HARRequest: Codable, Sendable, Equatable {
    /// The method.
    public var method: String
    /// The absolute URL, its secrets redacted.
    public var url: String
    /// `HTTP/1.1`, `HTTP/2`…
    public var httpVersion: String
    /// Always empty: cookies travel in the `Cookie` header, which is listed (redacted).
    public var cookies: [HARNameValue] = []
    /// The header fields, secrets redacted.
    public var headers: [HARNameValue]
    /// The query's items, secrets redacted.
    public var queryString: [HARNameValue]
    /// The body, when there was one.
    public var postData: HARPostData?
    /// -1: the size of the head as written is not known.
    public var headersSize = -1
    /// The body's size in bytes (-1 when unknown).
    public var bodySize: Int64
}

/// A response of a HAR entry.
public struct HARResponse: Codable, Sendable, Equatable {
    /// The status (0 when no response arrived).
    public var status: Int
    /// Empty: HTTP/2 sends no reason phrase, and Sluice keeps none.
    public var statusText = ""
    /// `HTTP/1.1`, `HTTP/2`…
    public var httpVersion: String
    /// Always empty: cookies arrive in `Set-Cookie` headers, which are listed (redacted).
    public var cookies: [HARNameValue] = []
    /// The header fields, secrets redacted.
    public var headers: [HARNameValue]
    /// The body.
    public var content: HARContent
    /// The `Location` header's value, or empty.
    public var redirectURL: String
    /// -1: the size of the head as received is not known.
    public var headersSize = -1
    /// The body's size in bytes as received (decoded).
    public var bodySize: Int64
}

/// A name and a value: a header field, a query item.
public struct HARNameValue: Codable, Sendable, Equatable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String
}

/// A request body of a HAR entry.
public struct HARPostData: Codable, Sendable, Equatable {
    /// The `Content-Type`, or empty.
    public var mimeType: String
    /// The body as text, when it was recorded and is UTF-8.
    public var text: String
}

/// A response body of a HAR entry.
public struct HARContent: Codable, Sendable, Equatable {
    /// The decoded body's size in bytes.
    public var size: Int64
    /// The `Content-Type`, or empty.
    public var mimeType: String
    /// The body, when recorded: as it is for UTF-8 text, in base64 otherwise (see `encoding`).
    public var text: String?
    /// `base64` when `text` is base64.
    public var encoding: String?
}

/// The cache information of a HAR entry: empty.
public struct HARCache: Codable, Sendable, Equatable {}

/// The phases of a transfer in milliseconds, -1 for those that did not happen (no DNS look-up
/// and no connection on a reused connection, no TLS for plain HTTP).
public struct HARTimings: Codable, Sendable, Equatable {
    /// Waiting for a connection: not measured, -1.
    public var blocked: Double = -1
    /// Resolving the host name.
    public var dns: Double
    /// Connecting, TLS included (as the format counts it).
    public var connect: Double
    /// Sending the request: not measured apart from waiting, 0.
    public var send: Double = 0
    /// Waiting for the first response byte.
    public var wait: Double
    /// Receiving the response.
    public var receive: Double
    /// The TLS handshake.
    public var ssl: Double
}
