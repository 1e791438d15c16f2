import FoundationEssentials
import Sluice

/// The text forms of an XML property list's `<integer>`, `<real>` and `<data>` values, read as
/// `PropertyListDecoder` reads them, and stricter where it guessed: XML whitespace around a value
/// is allowed, anything else that is not part of the form is an error naming the value.
/// (`<date>` is in `PropertyListText+Date.swift`.)
enum PropertyListText {
    /// An `<integer>`: an optional sign, optional whitespace, then decimal digits or `0x` and
    /// hexadecimal digits. One that does not fit an `Int` but fits 64 unsigned bits becomes the
    /// nearest `.real`, as `PropertyListDecoder` read it into `PropertyListObject`; a larger one is
    /// an error.
    static func integer(_ text: String) throws(PropertyListSyntaxError) -> PropertyListObject {
        let bytes = trimmed(text)
        guard !bytes.isEmpty else { throw PropertyListSyntaxError("empty <integer>") }
        var index = bytes.startIndex
        let isNegative = bytes[index] == UInt8(ascii: "-")
        if isNegative || bytes[index] == UInt8(ascii: "+") {
            index += 1
            while index < bytes.endIndex, XMLDocumentParser.isWhitespace(bytes[index]) { index += 1 }
        }
        let isHexadecimal =
            bytes.endIndex - index > 2 && bytes[index] == UInt8(ascii: "0")
            && (bytes[index + 1] == UInt8(ascii: "x") || bytes[index + 1] == UInt8(ascii: "X"))
        if isHexadecimal { index += 2 }
        guard index < bytes.endIndex else {
            throw PropertyListSyntaxError("<integer> \(quoted(text)) is not an integer")
        }
        var magnitude: UInt64 = 0
        while index < bytes.endIndex {
            guard let digit = XMLDocumentParser.digitValue(bytes[index], hexadecimal: isHexadecimal) else {
                throw PropertyListSyntaxError("<integer> \(quoted(text)) is not an integer")
            }
            let (shifted, overflowed) = magnitude.multipliedReportingOverflow(by: isHexadecimal ? 16 : 10)
            let (sum, carried) = shifted.addingReportingOverflow(UInt64(digit))
            guard !overflowed, !carried else {
                throw PropertyListSyntaxError("<integer> \(quoted(text)) does not fit in 64 bits")
            }
            magnitude = sum
            index += 1
        }
        if isNegative {
            guard magnitude <= UInt64(Int.max) + 1 else {
                throw PropertyListSyntaxError("<integer> \(quoted(text)) does not fit in 64 bits")
            }
            return .integer(Int(truncatingIfNeeded: 0 &- magnitude))
        }
        if let integer = Int(exactly: magnitude) { return .integer(integer) }
        return .real(Double(magnitude))
    }

    /// A `<real>`: decimal, with an optional fraction and exponent (`-1.5e3`, `.5`, `5.`), or
    /// `nan`, `inf` or `infinity` in any case, each with an optional sign. Hexadecimal floats are
    /// refused, as `PropertyListDecoder` refused them; a number too large for a `Double` is
    /// infinite and one too small is zero, as it read them.
    static func real(_ text: String) throws(PropertyListSyntaxError) -> Double {
        let bytes = trimmed(text)
        guard !bytes.isEmpty else { throw PropertyListSyntaxError("empty <real>") }
        var index = bytes.startIndex
        let isNegative = bytes[index] == UInt8(ascii: "-")
        if isNegative || bytes[index] == UInt8(ascii: "+") { index += 1 }
        if index < bytes.endIndex, bytes[index] | 0x20 == UInt8(ascii: "n") || bytes[index] | 0x20 == UInt8(ascii: "i")
        {
            switch String(decoding: bytes[index...], as: UTF8.self).lowercased() {
            case "nan": return .nan
            case "inf", "infinity": return isNegative ? -.infinity : .infinity
            default: throw PropertyListSyntaxError("<real> \(quoted(text)) is not a number")
            }
        }
        func digits() -> Int {
            let start = index
            while index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }
        var count = digits()
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: ".") {
            index += 1
            count += digits()
        }
        var isWellFormed = count > 0
        if isWellFormed, index < bytes.endIndex, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                index += 1
            }
            isWellFormed = digits() > 0
        }
        // Checked first because `Double.init` also reads hexadecimal and surrounding garbage is
        // not its concern; it then rounds the decimal text correctly.
        guard isWellFormed, index == bytes.endIndex, let value = Double(String(decoding: bytes, as: UTF8.self)) else {
            throw PropertyListSyntaxError("<real> \(quoted(text)) is not a number")
        }
        return value
    }

    /// A `<data>`: base64 (`+` and `/`), with XML whitespace anywhere. The padding may be left
    /// out, but not misplaced: `PropertyListDecoder` skipped characters it could not read and
    /// dropped a short last group, which loses bytes silently.
    static func data(_ text: String) throws(PropertyListSyntaxError) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count / 4 * 3)
        var group: UInt32 = 0
        var length = 0
        var padding = 0
        for byte in text.utf8 where !XMLDocumentParser.isWhitespace(byte) {
            if byte == UInt8(ascii: "=") {
                padding += 1
                guard length >= 2, length + padding <= 4 else {
                    throw PropertyListSyntaxError("<data> is not base64: misplaced '=' padding")
                }
                continue
            }
            guard padding == 0 else {
                throw PropertyListSyntaxError("<data> is not base64: text after the '=' padding")
            }
            guard let value = base64Value(byte) else {
                let character =
                    byte < 0x80
                    ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(TextLocation.hex(UInt32(byte), digits: 2))"
                throw PropertyListSyntaxError("<data> is not base64: \(character) is not a base64 character")
            }
            group = group << 6 | value
            length += 1
            if length == 4 {
                bytes += [
                    UInt8(truncatingIfNeeded: group >> 16), UInt8(truncatingIfNeeded: group >> 8),
                    UInt8(truncatingIfNeeded: group),
                ]
                group = 0
                length = 0
            }
        }
        switch length {
        case 0: break
        case 2 where padding == 0 || padding == 2: bytes.append(UInt8(truncatingIfNeeded: group >> 4))
        case 3 where padding == 0 || padding == 1:
            bytes += [UInt8(truncatingIfNeeded: group >> 10), UInt8(truncatingIfNeeded: group >> 2)]
        default: throw PropertyListSyntaxError("<data> is not base64: it ends inside a group of four characters")
        }
        return Data(bytes)
    }

    /// The 6-bit value of a base64 character, or nil.
    private static func base64Value(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(byte - UInt8(ascii: "a") + 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0") + 52)
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }

    /// `text`'s UTF-8 without the XML whitespace at either end.
    static func trimmed(_ text: String) -> ArraySlice<UInt8> {
        let bytes = Array(text.utf8)
        var first = bytes.startIndex
        var last = bytes.endIndex
        while first < last, XMLDocumentParser.isWhitespace(bytes[first]) { first += 1 }
        while last > first, XMLDocumentParser.isWhitespace(bytes[last - 1]) { last -= 1 }
        return bytes[first..<last]
    }

    /// `text` quoted for an error message, shortened past 40 characters.
    static func quoted(_ text: String) -> String {
        text.count > 40 ? String(text.prefix(40)).debugDescription.dropLast() + "…\"" : text.debugDescription
    }
}
