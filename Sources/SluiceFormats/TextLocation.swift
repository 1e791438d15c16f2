import Sluice

/// Lines, columns and hex for the errors of Sluice's own parsers (XML, JSON and property lists),
/// shared so they report positions the same way.
enum TextLocation {
    /// The 1-based line and column of `offset` in `bytes` (UTF-8), counted from `start`.
    ///
    /// Worked out only when an error is thrown, by one pass from the start, so reading a
    /// well-formed document costs no bookkeeping. Columns count characters, not bytes (UTF-8
    /// continuation bytes are skipped), and CR LF ends one line, as a lone CR or LF does.
    static func of(_ offset: Int, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        var index = start
        while index < min(offset, bytes.count) {
            let byte = bytes[index]
            if byte == 0x0A || (byte == 0x0D && (index + 1 == bytes.count || bytes[index + 1] != 0x0A)) {
                line += 1
                column = 1
            } else if byte != 0x0D && byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return (line, column)
    }

    /// `value` in upper-case hexadecimal, padded to `digits`, for error messages.
    static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
