/// Percent-escaping of query keys and values (RFC 3986 §3.4), as AFNetworking's
/// `AFPercentEscapedStringFromString` did it.
///
/// Left as they are: the unreserved characters (`A-Z a-z 0-9 - . _ ~`) and `?` and `/`, which RFC
/// 3986 §3.4 allows in a query and which servers read literally. Everything else is escaped: the
/// delimiters `:#[]@` and `!$&'()*+,;=` (so a value can never end a pair or a key early), space as
/// `%20` (never `+`), and every byte of every non-ASCII character, with uppercase hex digits.
///
/// Grapheme clusters are never split. AFNetworking escaped in batches and had to align each batch on
/// a composed character sequence, or an emoji cut in half would escape to garbage; here the whole
/// string's UTF-8 is escaped in one pass, so an emoji with a skin tone or a zero-width joiner, a
/// letter with combining marks, or a CRLF pair always comes out as the complete, valid UTF-8 of that
/// character. Unreserved ASCII characters are never escaped, as RFC 3986 §6.2.2.2
/// asks of URI producers (`e` followed by U+0301 becomes `e%CC%81`).
enum PercentEscaping {
    /// Escapes one query key or value.
    ///
    /// Byte by byte: every byte of a non-ASCII character is escaped, and an ASCII byte is kept or
    /// escaped on its own, so escaping the UTF-8 bytes in order gives what escaping each character
    /// whole gives (a CRLF pair is `%0D%0A` either way), without breaking the text into characters.
    static func escapeQueryComponent(_ string: String) -> String {
        var text = string
        let escaped = text.withUTF8 { bytes -> [UInt8]? in
            guard bytes.contains(where: { !isAllowedInQueryComponent($0) }) else { return nil }
            var escaped: [UInt8] = []
            escaped.reserveCapacity(bytes.count * 3)
            appendEscaped(bytes, to: &escaped)
            return escaped
        }
        return escaped.map { String(decoding: $0, as: UTF8.self) } ?? string
    }

    /// Appends `string` escaped as `escapeQueryComponent(_:)` escapes it.
    static func appendEscaped(_ string: String, to output: inout [UInt8]) {
        var string = string
        string.withUTF8 { appendEscaped($0, to: &output) }
    }

    /// Appends each byte of `bytes`: an allowed byte as it is, any other as `%XX`.
    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        for byte in bytes {
            if isAllowedInQueryComponent(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigit(byte >> 4))
                output.append(hexDigit(byte & 0x0F))
            }
        }
    }

    /// The uppercase hex digit of a value below 16.
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    /// Whether a byte stays as it is: the unreserved characters, `?` and `/`.
    static func isAllowedInQueryComponent(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "?"),
            UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }
}
