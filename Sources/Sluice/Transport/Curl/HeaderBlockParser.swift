internal import CCurl
import Foundation
import Synchronization

/// Reads the header lines of a response, as libcurl's header callback hands them over, one at a time.
///
/// A value type that a transfer keeps in one stored property, so a line costs one access to the
/// transfer's state; the bytes are read through a plain buffer pointer (a `Slice` of a raw buffer
/// takes generic, slow paths), and only the field names and values become strings.
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
    /// The fields of the current block, gathered in an array with room reserved up front
    /// (appending to `HTTPHeaders` grows its storage several times per response).
    private(set) var fields: [HTTPHeaders.Field] = []
    /// The first Content-Length of the current block, read as the line arrives.
    private(set) var contentLength: Int64?

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
        guard let colon = bytes[0..<end].firstIndex(of: UInt8(ascii: ":")) else { return .field }
        // Trimmed and decoded as bytes: Foundation's `trimmingCharacters(in:)` goes through
        // NSString and cost more than all of libcurl's work for a small response.
        var valueStart = colon + 1
        while valueStart < end, Self.isOptionalWhitespace(bytes[valueStart]) { valueStart += 1 }
        var valueEnd = end
        while valueEnd > valueStart, Self.isOptionalWhitespace(bytes[valueEnd - 1]) { valueEnd -= 1 }
        let name = UnsafeBufferPointer(rebasing: bytes[0..<colon])
        let valueBytes = UnsafeBufferPointer(rebasing: bytes[valueStart..<valueEnd])
        if contentLength == nil, Self.isContentLength(name) { contentLength = Self.integer(valueBytes).map(Int64.init) }
        fields.append(
            HTTPHeaders.Field(
                name: String(decoding: name, as: UTF8.self), value: String(decoding: valueBytes, as: UTF8.self)))
        return .field
    }

    /// Starts a block: `HTTP/1.1 200 OK` gives the version and the status; the reason is ignored.
    private mutating func readStatusLine(_ line: UnsafeBufferPointer<UInt8>) {
        fields.removeAll(keepingCapacity: true)
        fields.reserveCapacity(16)
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
    /// lookup in the finished `HTTPHeaders`).
    private static func isContentLength(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.count == 14 else { return false }
        var index = 0
        for lower in "content-length".utf8 {
            let byte = name[index]
            // Setting bit 5 lowercases an ASCII letter; the '-' must match as it is.
            let isLetter = lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
            guard byte == lower || (isLetter && byte | 0x20 == lower) else { return false }
            index += 1
        }
        return true
    }

    /// HTTP's optional whitespace around a field value (RFC 9110 §5.6.3): space and horizontal tab.
    private static func isOptionalWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }
}
