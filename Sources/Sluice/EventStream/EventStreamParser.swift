import FoundationEssentials

/// Reads a `text/event-stream` body incrementally, by the WHATWG HTML standard's rules
/// (§9.2.6 "Interpreting an event stream"): bytes in, events out, in chunks of any size.
///
/// - The stream is UTF-8; a byte order mark at its very start is skipped; invalid bytes become
///   U+FFFD.
/// - Lines end with CR LF, LF or CR, even when the CR and the LF arrive in different chunks.
/// - A line starting with `:` is a comment; `field:value` drops one space after the colon; a line
///   without a colon is a field with an empty value.
/// - `event` sets the type, `data` appends a line of data, `id` sets the last event ID (unless the
///   value holds a NUL), `retry` sets the reconnection time (ASCII digits only, in milliseconds);
///   other fields are ignored.
/// - An empty line dispatches the event; one with no data is not dispatched, and the type is reset
///   either way. What follows the last empty line when the stream ends is discarded.
///
/// Lines are bounded (`maximumLineLength`): a server that never ends a line cannot make the parser
/// hold more than that, it fails with `.protocolError` instead.
public struct EventStreamParser: Sendable {
    /// The most bytes a line may hold (1 MiB by default).
    public let maximumLineLength: Int
    /// The last event ID: it outlives the event that set it, and survives a reconnection.
    public private(set) var lastEventID: String?
    /// The reconnection time the stream asked for last, if any.
    public private(set) var retry: Duration?

    private var line: [UInt8] = []
    private var afterCR = false
    private var atStart = true
    private var eventType = ""
    private var data = ""
    private var hasData = false
    private var eventRetry: Duration?

    /// Creates a parser; `lastEventID` carries the ID over from a stream that was interrupted.
    public init(lastEventID: String? = nil, maximumLineLength: Int = 1 << 20) {
        self.lastEventID = lastEventID
        self.maximumLineLength = maximumLineLength
    }

    /// Reads `bytes`, the next part of the stream, and returns the events they complete.
    public mutating func parse(_ bytes: some Sequence<UInt8>) throws(SluiceError) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if atStart {
                atStart = false
                // The BOM, EF BB BF, is recognised byte by byte as the stream starts.
                if byte == 0xEF {
                    bomProgress = 1
                    continue
                }
            }
            if bomProgress > 0 {
                let expected: UInt8 = bomProgress == 1 ? 0xBB : 0xBF
                if byte == expected {
                    bomProgress = bomProgress == 1 ? 2 : 0
                    continue
                }
                // Not a BOM after all: the bytes seen so far are part of the first line.
                line.append(0xEF)
                if bomProgress == 2 { line.append(0xBB) }
                bomProgress = 0
            }
            switch byte {
            case 0x0A:
                if afterCR {
                    afterCR = false
                    continue
                }
                if let event = endLine() { events.append(event) }
            case 0x0D:
                afterCR = true
                if let event = endLine() { events.append(event) }
            default:
                afterCR = false
                guard line.count < maximumLineLength else {
                    throw SluiceError(
                        .protocolError,
                        "An event stream line exceeded \(maximumLineLength) bytes without ending.")
                }
                line.append(byte)
            }
        }
        return events
    }

    /// How much of a byte order mark has been seen at the start of the stream (0, 1 or 2 bytes).
    private var bomProgress = 0

    /// Interprets the line just ended; returns the event an empty line dispatches.
    private mutating func endLine() -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty { return dispatch() }
        if line[0] == UInt8(ascii: ":") { return nil }
        let name: String
        let value: String
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            name = String(decoding: line[..<colon], as: UTF8.self)
            var start = colon + 1
            if start < line.count, line[start] == UInt8(ascii: " ") { start += 1 }
            value = String(decoding: line[start...], as: UTF8.self)
        } else {
            name = String(decoding: line, as: UTF8.self)
            value = ""
        }
        switch name {
        case "event":
            eventType = value
        case "data":
            if hasData { data += "\n" }
            data += value
            hasData = true
        case "id":
            if !value.utf8.contains(0) { lastEventID = value }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
                // Digits past what an Int holds are a time no reconnection would wait for.
                let milliseconds = Int(value) ?? Int.max
                eventRetry = .milliseconds(min(milliseconds, Int.max / 1_000_000))
                retry = eventRetry
            }
        default:
            break
        }
        return nil
    }

    /// The event that the fields since the last empty line make, if it has data.
    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            eventType = ""
            data = ""
            hasData = false
            eventRetry = nil
        }
        guard hasData else { return nil }
        return ServerSentEvent(
            event: eventType.isEmpty ? "message" : eventType, data: data, id: lastEventID, retry: eventRetry)
    }
}
