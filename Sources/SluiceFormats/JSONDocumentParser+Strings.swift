import Sluice

/// Strings: the plain run of bytes most strings are, and escapes, `\u` surrogate pairs included.
extension JSONDocumentParser {
    /// Reads a string from its opening quote, and checks that it is valid UTF-8.
    mutating func readString() throws(JSONSyntaxError) -> String {
        let start = position
        position += 1
        // Most strings have no escape: scan to the closing quote and make the string in one go.
        var runStart = position
        var unescaped: [UInt8] = []
        while true {
            guard let byte = byte(at: position) else {
                throw error("end of the document inside a string opened here", at: start)
            }
            switch byte {
            case UInt8(ascii: "\""):
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<position])
                position += 1
                if unescaped.isEmpty {
                    guard let string = String(validating: run, as: UTF8.self) else {
                        throw invalidUTF8(in: runStart..<(position - 1))
                    }
                    return string
                }
                unescaped.append(contentsOf: run)
                guard let string = String(validating: unescaped, as: UTF8.self) else {
                    throw invalidUTF8(in: (start + 1)..<(position - 1))
                }
                return string
            case UInt8(ascii: "\\"):
                unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
                try readEscape(into: &unescaped)
                runStart = position
            case 0x00..<0x20:
                throw error(
                    "unescaped control character U+\(Self.hex(UInt32(byte), digits: 4)) in a string "
                        + "(write it as \\u\(Self.hex(UInt32(byte), digits: 4)))")
            default:
                position += 1
            }
        }
    }

    /// Reads one escape from its backslash and appends the UTF-8 of what it stands for.
    mutating func readEscape(into text: inout [UInt8]) throws(JSONSyntaxError) {
        let start = position
        position += 1
        let escaped: UInt8
        switch byte(at: position) {
        case UInt8(ascii: "\""): escaped = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): escaped = UInt8(ascii: "/")
        case UInt8(ascii: "b"): escaped = 0x08
        case UInt8(ascii: "f"): escaped = 0x0C
        case UInt8(ascii: "n"): escaped = 0x0A
        case UInt8(ascii: "r"): escaped = 0x0D
        case UInt8(ascii: "t"): escaped = 0x09
        case UInt8(ascii: "u"):
            position += 1
            let scalar = try readUnicodeEscape(from: start)
            text.append(contentsOf: String(Character(scalar)).utf8)
            return
        case nil: throw error("end of the document inside a string", at: start)
        default:
            throw error(
                "invalid escape: \\ followed by \(describe(position)) (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)",
                at: start)
        }
        position += 1
        text.append(escaped)
    }

    /// Reads the four hex digits after `\u` (and a second `\uXXXX` when they are a high surrogate).
    mutating func readUnicodeEscape(from start: Int) throws(JSONSyntaxError) -> Unicode.Scalar {
        let unit = try readHexQuad(escapeAt: start)
        switch unit {
        case 0xD800..<0xDC00:
            let lowStart = position
            guard byte(at: position) == UInt8(ascii: "\\"), byte(at: position + 1) == UInt8(ascii: "u") else {
                throw error(
                    "\\u\(Self.hex(unit, digits: 4)) is a high surrogate without the low one after it", at: start)
            }
            position += 2
            let low = try readHexQuad(escapeAt: lowStart)
            guard (0xDC00..<0xE000).contains(low) else {
                throw error(
                    "\\u\(Self.hex(unit, digits: 4)) is a high surrogate followed by \\u\(Self.hex(low, digits: 4)), "
                        + "not a low one", at: lowStart)
            }
            // Always a valid scalar: the pair encodes U+10000 to U+10FFFF.
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
        case 0xDC00..<0xE000:
            throw error("\\u\(Self.hex(unit, digits: 4)) is a low surrogate without the high one before it", at: start)
        default:
            return Unicode.Scalar(unit)!
        }
    }

    /// Reads exactly four hex digits of the `\u` escape at `start`.
    mutating func readHexQuad(escapeAt start: Int) throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let digit: UInt8
            switch byte(at: position) {
            case .some(let byte) where (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
                digit = byte - UInt8(ascii: "0")
            case .some(let byte) where (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20):
                digit = (byte | 0x20) - UInt8(ascii: "a") + 10
            default:
                throw error("a \\u escape needs four hex digits, found \(describe(position))", at: start)
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// The error for a string in `range` that is not valid UTF-8, at its first bad byte.
    func invalidUTF8(in range: Range<Int>) -> JSONSyntaxError {
        var index = range.lowerBound
        var decoder = UTF8()
        var iterator = UnsafeBufferPointer(rebasing: bytes[range]).makeIterator()
        while case .scalarValue(let scalar) = decoder.decode(&iterator) {
            index += UTF8.width(scalar)
        }
        return error(
            "a string that is not valid UTF-8 (byte 0x\(Self.hex(UInt32(bytes[index]), digits: 2)))", at: index)
    }
}
