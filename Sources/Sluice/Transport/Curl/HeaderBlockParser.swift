internal import CCurl
import FoundationEssentials
import Synchronization

/// Reads the header lines of a response, as libcurl's header callback hands them over, one at a time.
///
/// A value type that a transfer keeps in one stored property, so a line costs one access to the
/// transfer's state; the bytes are read through a plain buffer pointer (a `Slice` of a raw buffer
/// takes generic, slow paths). Field lines are kept as received, for `HTTPHeaders` to read on
/// demand (see `RawHeaderLines`); only the status, the version and the Content-Length are read here.
///
/// libcurl frames the body from the same lines by its own reading of them (the last of several
/// Content-Lengths, chunked over a Content-Length, a length too large for it read as "until the
/// connection closes"), so the lines that decide framing are checked here and a block whose
/// framing is ambiguous is refused (RFC 9112 §6.3): Content-Lengths that differ (also within one
/// comma-separated value), one that is not digits or does not fit in 63 bits, and a
/// Content-Length with a Transfer-Encoding. Only a line that starts with one of those two names
/// is looked at further, so an ordinary head costs nothing more. An obsolete line folding (a line
/// that starts with a space or a tab continues the previous one) is replaced by one space, as
/// RFC 9112 §5.2 asks of a user agent, and the joined line is read again if it decides framing.
struct HeaderBlockParser {
    /// What a line was.
    enum Line {
        /// The status line, which starts a new block (a 1xx block is followed by another).
        case status
        /// A header field (or a line that is not one, which is ignored), or the continuation of one.
        case field
        /// The blank line that ends a block.
        case end
        /// A field that makes the block's framing invalid; `problem` says why. The transfer must
        /// be abandoned: what libcurl would read as the body is not known to be the body.
        case invalid
    }

    /// The status code of the current block (0 if it could not be read).
    private(set) var status = 0
    /// The HTTP version of the current block.
    private(set) var version = HTTPVersion.http1_1
    /// The field lines of the current block, as received.
    private var lines: [UInt8] = []
    /// The Content-Length of the current block, read as the line arrives (every one agrees).
    private(set) var contentLength: Int64?
    /// Why the current block's framing is invalid, once a line returned `.invalid`.
    private(set) var problem: String?
    /// Whether the current block has a Transfer-Encoding field.
    private var hasTransferEncoding = false
    /// Whether one of its Transfer-Encoding fields names the chunked coding (see `isReadToClose`).
    private var hasChunkedCoding = false
    /// Whether the block has a Content-Encoding (its body's length then is not its decoded length).
    private(set) var hasContentEncoding = false
    /// Where the latest Content-Length line starts in `lines` (-1: none yet), and the length
    /// before it: a folded continuation of that line makes it read again.
    private var contentLengthLineStart = -1
    private var contentLengthBeforeItsLine: Int64?
    /// Whether the current lines are a trailer (after the head was taken): framing is decided by then.
    private var isTrailer = false
    /// Whether the next line starts a block: the first line, or the one after a blank line. Only
    /// there, and not in a trailer, is a line that starts with `HTTP/` a status line, as libcurl
    /// reads it: inside a head or a trailer it is a field line without a colon, which frames
    /// nothing (read as a status line, it reset the status and the framing, and a trailer's could
    /// replace a response's status after its body).
    private var atBlockStart = true

    /// Whether the current block frames its body by the connection's close: no Content-Length and
    /// no chunked coding (RFC 9112 §6.3: a Transfer-Encoding without chunked is read to the close
    /// too, as libcurl does; whether there is a body at all is the status's and the method's to say).
    var isReadToClose: Bool { contentLength == nil && !hasChunkedCoding }

    /// The current block's fields; the parser lets go of its lines. Lines that follow before the
    /// next status line are a trailer.
    mutating func takeHeaders() -> HTTPHeaders {
        defer {
            lines = []
            isTrailer = true
            // The head's Content-Length line went with its lines: a folded trailer line must not
            // read it again (its start would lie past the trailer's lines).
            contentLengthLineStart = -1
        }
        return HTTPHeaders(lines: RawHeaderLines(bytes: lines))
    }

    /// libcurl sends the request again on the same transfer (after a 417 to `Expect:
    /// 100-continue`, or for authentication): the lines that follow are a new response's, not a
    /// trailer of the one before.
    mutating func requestSentAgain() {
        isTrailer = false
        atBlockStart = true
    }

    /// Reads one line, its CR LF included.
    mutating func read(_ bytes: UnsafeBufferPointer<UInt8>) -> Line {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        if end == 0 {
            atBlockStart = true
            return .end
        }
        let startsBlock = atBlockStart && !isTrailer
        atBlockStart = false
        if startsBlock && end >= 5 && bytes[0] == 0x48 && bytes[1] == 0x54 && bytes[2] == 0x54 && bytes[3] == 0x50
            && bytes[4] == 0x2F
        {
            readStatusLine(UnsafeBufferPointer(rebasing: bytes[0..<end]))
            return .status
        }
        if RawHeaderLines.isOptionalWhitespace(bytes[0]) {
            return readContinuation(UnsafeBufferPointer(rebasing: bytes[0..<end]))
        }
        // Room for a typical head at once: appending line by line would grow the array four times.
        if lines.isEmpty { lines.reserveCapacity(512) }
        let start = lines.count
        lines.append(contentsOf: bytes)
        // The line ends with its line break in the block, even if libcurl handed it over without one.
        if bytes[bytes.count - 1] != 0x0A { lines.append(0x0A) }
        // Only a line that starts with one of the names that decide framing, and its colon, is
        // read further (libcurl reads only such a line, without a space before the colon, too).
        if end >= 15, bytes[14] == UInt8(ascii: ":"),
            Self.isName("content-length", UnsafeBufferPointer(rebasing: bytes[0..<14]))
        {
            return readContentLength(UnsafeBufferPointer(rebasing: bytes[0..<end]), at: start)
        }
        if end >= 18, bytes[17] == UInt8(ascii: ":"),
            Self.isName("transfer-encoding", UnsafeBufferPointer(rebasing: bytes[0..<17]))
        {
            return readTransferEncoding(UnsafeBufferPointer(rebasing: bytes[0..<end]))
        }
        if end >= 17, bytes[16] == UInt8(ascii: ":"),
            Self.isName("content-encoding", UnsafeBufferPointer(rebasing: bytes[0..<16]))
        {
            if !isTrailer { hasContentEncoding = true }
        }
        return .field
    }

    /// A Content-Length line: its value must be one length, or a list of the same length, and
    /// agree with any earlier Content-Length of the block; none may come with a Transfer-Encoding.
    private mutating func readContentLength(_ line: UnsafeBufferPointer<UInt8>, at start: Int) -> Line {
        if isTrailer { return .field }
        contentLengthLineStart = start
        contentLengthBeforeItsLine = contentLength
        guard let (_, value) = RawHeaderLines.field(in: line) else { return .field }
        guard let length = Self.contentLength(value) else {
            return invalid(
                "its Content-Length \(Self.quoted(value)) is not a length (digits, at most \(Int64.max))")
        }
        if let earlier = contentLength, earlier != length {
            return invalid("it has Content-Lengths that differ: \(earlier), then \(Self.quoted(value))")
        }
        contentLength = length
        if hasTransferEncoding { return bothFramings() }
        return .field
    }

    /// A Transfer-Encoding line: it may not come with a Content-Length.
    private mutating func readTransferEncoding(_ line: UnsafeBufferPointer<UInt8>) -> Line {
        if isTrailer { return .field }
        hasTransferEncoding = true
        if let (_, value) = RawHeaderLines.field(in: line), Self.namesChunked(value) { hasChunkedCoding = true }
        if contentLength != nil { return bothFramings() }
        return .field
    }

    private mutating func bothFramings() -> Line {
        invalid("it has both a Content-Length and a Transfer-Encoding, which may frame its body in two ways")
    }

    private mutating func invalid(_ reason: String) -> Line {
        problem = reason
        return .invalid
    }

    /// A line that starts with a space or a tab (RFC 9112 §5.2's obsolete line folding): it
    /// continues the previous field line, joined with one space in place of the line break and the
    /// whitespace around it. Before any field line of the head, there is nothing to continue: the
    /// head is invalid (RFC 9112 §2.2 allows that; libcurl 7 refuses it too, with a generic error).
    /// In a trailer, which frames nothing, such a line is dropped.
    private mutating func readContinuation(_ line: UnsafeBufferPointer<UInt8>) -> Line {
        guard !lines.isEmpty else {
            if isTrailer { return .field }
            return invalid("a line starts with whitespace before any header field, so it continues nothing")
        }
        while let last = lines.last, last == 0x0A || last == 0x0D || RawHeaderLines.isOptionalWhitespace(last) {
            lines.removeLast()
        }
        var textStart = 0
        while textStart < line.count, RawHeaderLines.isOptionalWhitespace(line[textStart]) { textStart += 1 }
        lines.append(0x20)
        lines.append(contentsOf: UnsafeBufferPointer(rebasing: line[textStart...]))
        lines.append(0x0A)
        // A continued Content-Length (the latest line, whose only line break is the last byte) is
        // read again, whole, in place of what its first line said.
        let start = contentLengthLineStart
        guard start >= 0, !lines[start..<(lines.count - 1)].contains(0x0A) else { return .field }
        contentLength = contentLengthBeforeItsLine
        let joined = Array(lines[start...])
        return joined.withUnsafeBufferPointer { readContentLength($0, at: start) }
    }

    /// Starts a block: `HTTP/1.1 200 OK` gives the version and the status; the reason is ignored.
    private mutating func readStatusLine(_ line: UnsafeBufferPointer<UInt8>) {
        lines.removeAll(keepingCapacity: true)
        contentLength = nil
        problem = nil
        hasTransferEncoding = false
        hasChunkedCoding = false
        hasContentEncoding = false
        contentLengthLineStart = -1
        isTrailer = false
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

    /// A Content-Length value (RFC 9112 §6.3): digits that fit in 63 bits, or a comma-separated
    /// list of the same such length; nil for anything else, which is invalid.
    private static func contentLength(_ value: UnsafeBufferPointer<UInt8>) -> Int64? {
        var length: Int64?
        var index = 0
        while true {
            while index < value.count, RawHeaderLines.isOptionalWhitespace(value[index]) { index += 1 }
            var member: Int64 = 0
            let start = index
            while index < value.count, value[index] &- 0x30 <= 9 {
                let (shifted, overflow) = member.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = shifted.addingReportingOverflow(Int64(value[index] &- 0x30))
                guard !overflow && !overflow2 else { return nil }
                member = sum
                index += 1
            }
            guard index > start, length == nil || length == member else { return nil }
            length = member
            while index < value.count, RawHeaderLines.isOptionalWhitespace(value[index]) { index += 1 }
            if index == value.count { return length }
            guard value[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }

    /// A value for a message, quoted, and cut short if it is long.
    private static func quoted(_ value: UnsafeBufferPointer<UInt8>) -> String {
        let text = String(decoding: value.prefix(40), as: UTF8.self)
        return (value.count > 40 ? text + "…" : text).debugDescription
    }

    /// Whether a comma-separated list of codings has `chunked`, in any case and place (libcurl reads
    /// a chunked body then), with or without parameters.
    static func namesChunked(_ list: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = 0
        while start <= list.count {
            var end = start
            while end < list.count, list[end] != UInt8(ascii: ",") { end += 1 }
            var nameStart = start
            while nameStart < end, RawHeaderLines.isOptionalWhitespace(list[nameStart]) { nameStart += 1 }
            var nameEnd = nameStart
            while nameEnd < end, list[nameEnd] != UInt8(ascii: ";"),
                !RawHeaderLines.isOptionalWhitespace(list[nameEnd])
            {
                nameEnd += 1
            }
            if isName("chunked", UnsafeBufferPointer(rebasing: list[nameStart..<nameEnd])) { return true }
            start = end + 1
        }
        return false
    }

    /// Whether a header name is `wanted` (lower-case), in any case, compared as bytes (cheaper than
    /// a lookup in the finished `HTTPHeaders`; a static string's bytes need no allocation).
    @inline(__always)
    private static func isName(_ wanted: StaticString, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.count == wanted.utf8CodeUnitCount else { return false }
        return String.asciiCaseInsensitiveEqual(
            name, UnsafeBufferPointer(start: wanted.utf8Start, count: wanted.utf8CodeUnitCount))
    }
}
