import Sluice

/// Numbers: RFC 8259's grammar checked byte by byte, then converted to a `Double`.
extension JSONDocumentParser {
    /// Reads a number: `-`? (`0` | [1-9][0-9]*) (`.` [0-9]+)? ([eE] [+-]? [0-9]+)?
    mutating func readNumber() throws(JSONSyntaxError) -> Double {
        let start = position
        let isNegative = byte(at: position) == UInt8(ascii: "-")
        if isNegative { position += 1 }
        // Up to 15 digits and nothing else are exact in a Double: the common case needs no text.
        var integer = 0
        let integerStart = position
        switch byte(at: position) {
        case UInt8(ascii: "0"):
            position += 1
            if let next = byte(at: position), Self.isDigit(next) {
                throw error("leading zero in a number", at: integerStart)
            }
        case .some(let digit) where Self.isDigit(digit):
            while let digit = byte(at: position), Self.isDigit(digit) {
                integer = integer &* 10 &+ Int(digit - UInt8(ascii: "0"))
                position += 1
            }
        default:
            throw error("\(describe(position)) where a digit was expected in a number")
        }
        let integerDigits = position - integerStart
        var isInteger = true
        if byte(at: position) == UInt8(ascii: ".") {
            position += 1
            try readDigits(after: "the decimal point")
            isInteger = false
        }
        if let exponent = byte(at: position), exponent | 0x20 == UInt8(ascii: "e") {
            position += 1
            if byte(at: position) == UInt8(ascii: "+") || byte(at: position) == UInt8(ascii: "-") { position += 1 }
            try readDigits(after: "the exponent")
            isInteger = false
        }
        if isInteger && integerDigits <= 15 {
            // `-0` keeps its sign, as the text conversion would.
            return isNegative ? (integer == 0 ? -0.0 : -Double(integer)) : Double(integer)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        // The grammar is checked, so the conversion cannot fail; a value out of range becomes
        // infinite (too large, an error) or zero (too small, as JSONSerialization read it).
        guard let value = Double(text), value.isFinite else {
            throw error("the number \(text) does not fit in a Double", at: start)
        }
        return value
    }

    /// Reads one digit or more, which must follow `what`.
    mutating func readDigits(after what: String) throws(JSONSyntaxError) {
        guard let first = byte(at: position), Self.isDigit(first) else {
            throw error("\(describe(position)) where a digit was expected after \(what)")
        }
        while let digit = byte(at: position), Self.isDigit(digit) { position += 1 }
    }

    /// Whether `byte` is an ASCII digit.
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
