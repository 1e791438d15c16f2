internal import CCurl
import FoundationEssentials
import Synchronization

/// Reads the header lines of a response, as libcurl's header callback hands them over, one at a time.
///
/// A value type that a transfer keeps in one stored property, so a line costs one access to the
/// transfer's state; the bytes are read through a plain buffer pointer (a `Slice` of a raw buffer
/// takes generic, slow paths). Field lines are kept as received, for `HTTPHeaders` to read on
/// demand (see `RawHeaderLines`); only the status, the version and the Content-Length are read here.
struct HeaderBlockParser {
    /// What a line was.
    enum Line {
        /// The status line, which starts a new block (a 1xx block is followed by another).
        case status
        /// A header field (or a line that is not one, which is ignored).
        case field
        /// The blank line that ends a block.
        case end
    }

    /// The status code of the current block (0 if it could not be read).
    private(set) var status = 0
    /// The HTTP version of the current block.
    private(set) var version = HTTPVersion.http1_1
    /// The field lines of the current block, as received.
    private var lines: [UInt8] = []
    /// The first Content-Length of the current block, read as the line arrives.
    private(set) var contentLength: Int64?

    /// The current block's fields; the parser lets go of its lines.
    mutating func takeHeaders() -> HTTPHeaders {
        defer { lines = [] }
        return HTTPHeaders(lines: RawHeaderLines(bytes: lines))
    }

    /// Reads one line, its CR LF included.
    mutating func read(_ bytes: UnsafeBufferPointer<UInt8>) -> Line {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        if end == 0 { return .end }
        if end >= 5 && bytes[0] == 0x48 && bytes[1] == 0x54 && bytes[2] == 0x54 && bytes[3] == 0x50 && bytes[4] == 0x2F
        {
            readStatusLine(UnsafeBufferPointer(rebasing: bytes[0..<end]))
            return .status
        }
        // Room for a typical head at once: appending line by line would grow the array four times.
        if lines.isEmpty { lines.reserveCapacity(512) }
        lines.append(contentsOf: bytes)
        // The line ends with its line break in the block, even if libcurl handed it over without one.
        if bytes[bytes.count - 1] != 0x0A { lines.append(0x0A) }
        // Only a line that starts with the name and its colon is read further.
        if contentLength == nil, end > 15, bytes[14] == UInt8(ascii: ":"),
            Self.isContentLength(UnsafeBufferPointer(rebasing: bytes[0..<14])),
            let (_, value) = RawHeaderLines.field(in: bytes)
        {
            contentLength = Self.integer(value).map(Int64.init)
        }
        return .field
    }

    /// Starts a block: `HTTP/1.1 200 OK` gives the version and the status; the reason is ignored.
    private mutating func readStatusLine(_ line: UnsafeBufferPointer<UInt8>) {
        lines.removeAll(keepingCapacity: true)
        contentLength = nil
        // The version, then the status: words separated by runs of spaces.
        var index = 0
        while index < line.count && line[index] != 0x20 { index += 1 }
        let versionWord = UnsafeBufferPointer(rebasing: line[0..<index])
        while index < line.count && line[index] == 0x20 { index += 1 }
        let statusStart = index
        while index < line.count && line[index] != 0x20 { index += 1 }
        version = Self.version(versionWord)
        status = Self.integer(UnsafeBufferPointer(rebasing: line[statusStart..<index])) ?? 0
    }

    /// The version a word that starts with `HTTP/` names: HTTP/1.0, HTTP/2 (or 2.0), HTTP/3, and
    /// HTTP/1.1 for anything else. Compared byte by byte: `elementsEqual` with a string's UTF-8
    /// view goes through generic code that cost more than the rest of the status line.
    private static func version(_ word: UnsafeBufferPointer<UInt8>) -> HTTPVersion {
        let one = UInt8(ascii: "1")
        let two = UInt8(ascii: "2")
        let three = UInt8(ascii: "3")
        let dot = UInt8(ascii: ".")
        let zero = UInt8(ascii: "0")
        switch word.count {
        case 6:
            if word[5] == two { return .http2 }
            if word[5] == three { return .http3 }
        case 8 where word[6] == dot && word[7] == zero:
            if word[5] == one { return .http1_0 }
            if word[5] == two { return .http2 }
        default:
            break
        }
        return .http1_1
    }

    /// A decimal integer with an optional sign, as `Int(_: String)` reads it; nil if the bytes
    /// are not one or it overflows.
    private static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            negative = first == UInt8(ascii: "-")
            index = 1
        }
        guard index < bytes.count else { return nil }
        var result = 0
        while index < bytes.count {
            let digit = Int(bytes[index]) &- 0x30
            guard digit >= 0 && digit <= 9 else { return nil }
            let (shifted, overflow) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) =
                negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflow && !overflow2 else { return nil }
            result = sum
            index += 1
        }
        return result
    }

    /// Whether a header name is Content-Length, in any case, compared as bytes (cheaper than a
    /// lookup in the finished `HTTPHeaders`; a static string's bytes need no allocation).
    private static func isContentLength(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let contentLength: StaticString = "content-length"
        guard name.count == contentLength.utf8CodeUnitCount else { return false }
        return String.asciiCaseInsensitiveEqual(
            name, UnsafeBufferPointer(start: contentLength.utf8Start, count: contentLength.utf8CodeUnitCount))
    }
}
