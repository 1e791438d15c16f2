/// Percent-escaping of query keys and values (RFC 3986 §3.4), as AFNetworking's
/// `AFPercentEscapedStringFromString` did it.
///
/// Left as they are: the unreserved characters (`A-Z a-z 0-9 - . _ ~`) and `?` and `/`, which RFC
/// 3986 §3.4 allows in a query and which servers read literally. Everything else is escaped: the
/// delimiters `:#[]@` and `!$&'()*+,;=` (so a value can never end a pair or a key early), space as
/// `%20` (never `+`), and every byte of every non-ASCII character, with uppercase hex digits.
///
/// Grapheme clusters are never split. AFNetworking escaped in batches and had to align each batch on
/// a composed character sequence, or an emoji cut in half would escape to garbage; here each
/// `Character` is escaped whole, in one pass over its UTF-8 bytes, so an emoji with a skin tone or a
/// zero-width joiner, a letter with combining marks, or a CRLF pair always comes out as the complete,
/// valid UTF-8 of that character. Unreserved ASCII characters are never escaped, as RFC 3986 §6.2.2.2
/// asks of URI producers (`e` followed by U+0301 becomes `e%CC%81`).
enum PercentEscaping {
    /// Escapes one query key or value.
    static func escapeQueryComponent(_ string: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count)
        for character in string {
            if character.isASCII, let ascii = character.asciiValue, isAllowedInQueryComponent(ascii) {
                bytes.append(ascii)
                continue
            }
            appendEscaped(character, to: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends one whole character: its allowed ASCII bytes as they are, every other byte as `%XX`.
    private static func appendEscaped(_ character: Character, to bytes: inout [UInt8]) {
        for byte in character.utf8 {
            if isAllowedInQueryComponent(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
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

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
}
