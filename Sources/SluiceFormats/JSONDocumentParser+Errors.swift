import Sluice

/// Errors: where they are, and what the offending character is, in words.
extension JSONDocumentParser {
    /// An error at `offset` (the current position unless told).
    func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        let (line, column) = TextLocation.of(offset ?? position, in: bytes, from: documentStart)
        return JSONSyntaxError(line: line, column: column, message: message)
    }

    /// The character at `offset` for a message: `'x'`, `U+0007`, or `the end of the document`.
    func describe(_ offset: Int) -> String {
        guard let byte = byte(at: offset) else { return "the end of the document" }
        if (0x21..<0x7F).contains(byte) { return "'\(Character(Unicode.Scalar(byte)))'" }
        if byte < 0x80 { return "U+\(Self.hex(UInt32(byte), digits: 4))" }
        var iterator = UnsafeBufferPointer(rebasing: bytes[offset...]).makeIterator()
        var decoder = UTF8()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) {
            return "'\(Character(scalar))' (U+\(Self.hex(scalar.value, digits: 4)))"
        }
        return "byte 0x\(Self.hex(UInt32(byte), digits: 2)), which is not UTF-8"
    }

    /// `value` in upper-case hexadecimal, padded to `digits`.
    static func hex(_ value: UInt32, digits: Int) -> String {
        TextLocation.hex(value, digits: digits)
    }
}
