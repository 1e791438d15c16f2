/// Media ranges read from ASCII bytes, for the common headers: an `Accept` list without
/// parameters or quotes (`application/json`, `application/json, text/plain, */*`) and a
/// `Content-Type`'s `type/subtype`. Reading them as `MediaRange(_:)` does, through `Character`s,
/// `trimmingWhitespace()`, `lowercased()` and a `Set` per token check, made `validate()` of a request
/// with an `Accept` header cost nearly as much as the whole request (87,000 instructions).
///
/// For ASCII text without those characters both readings agree: `,`, `;`, `/`, spaces and tabs
/// are single characters, and lowercasing is ASCII's. Anything else goes to `MediaRange(_:)`.
extension MediaRange {
    /// A range with these parts, already lowercased.
    init(type: String, subtype: String, quality: Double) {
        self.type = type
        self.subtype = subtype
        self.quality = quality
    }

    /// The ranges of an ASCII `Accept` header with no `;`, `"` or `\`, each at quality 1, malformed
    /// elements left out, as `list(_:)` reads it; nil for any other header.
    static func asciiList(_ header: String) -> [MediaRange]? {
        header.utf8.withContiguousStorageIfAvailable { bytes -> [MediaRange]? in
            for byte in bytes
            where byte >= 0x80 || byte == UInt8(ascii: ";") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
            {
                return nil
            }
            var ranges: [MediaRange] = []
            var start = 0
            for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: ",") {
                if let range = asciiRange(bytes, start..<index) { ranges.append(range) }
                start = index + 1
            }
            return ranges
        } ?? nil
    }

    /// The type and subtype of an ASCII `Content-Type` with no `"` or `\` before its first `;`, as
    /// `MediaRange(_:)` reads them (the quality left at 1: a content type's does not count); nil
    /// for any other header or a malformed one.
    static func asciiContentType(_ header: String) -> MediaRange? {
        header.utf8.withContiguousStorageIfAvailable { bytes -> MediaRange? in
            var end = bytes.count
            for index in 0..<bytes.count {
                let byte = bytes[index]
                if byte >= 0x80 { return nil }
                guard end == bytes.count else { continue }
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return nil }
                if byte == UInt8(ascii: ";") { end = index }
            }
            return asciiRange(bytes, 0..<end)
        } ?? nil
    }

    /// `type/subtype` (or `*`) in `bytes[range]`, trimmed of spaces and tabs and lowercased, both
    /// parts non-empty tokens; nil otherwise.
    private static func asciiRange(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> MediaRange? {
        let trimmed = ASCIIHeaderText.trimmed(bytes, range)
        if trimmed.count == 1 && bytes[trimmed.lowerBound] == UInt8(ascii: "*") {
            return MediaRange(type: "*", subtype: "*", quality: 1)
        }
        guard let parts = ASCIIHeaderText.typeAndSubtype(bytes, trimmed),
            parts.type.allSatisfy({ isTokenByte(bytes[$0]) }), parts.subtype.allSatisfy({ isTokenByte(bytes[$0]) })
        else { return nil }
        return MediaRange(
            type: ASCIIHeaderText.lowercased(bytes, parts.type),
            subtype: ASCIIHeaderText.lowercased(bytes, parts.subtype), quality: 1)
    }

    /// Whether a byte may appear in a token (RFC 9110's `tchar`).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "a")...UInt8(ascii: "z"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
