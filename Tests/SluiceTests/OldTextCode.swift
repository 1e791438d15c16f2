import Foundation

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// The character-by-character header readers and query escaping as they were before the byte-level ones, copied unchanged
/// (but for their names) so that the tests compare the new readers with the old behaviour itself,
/// not with code that now shares parts with them.
enum OldTextCode {
    /// `MediaRange.init?(_:)` before `da471ac`.
    static func mediaRange(_ text: Substring) -> MediaRange? {
        let parts = split(text, at: ";")
        let name = parts.first.map { $0.trimmingWhitespace().lowercased() } ?? ""
        let pieces = name == "*" ? ["*", "*"] : name.split(separator: "/", omittingEmptySubsequences: false)
        guard pieces.count == 2, pieces.allSatisfy({ !$0.isEmpty && isToken($0) }) else { return nil }
        var quality = 1.0
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingWhitespace().lowercased() == "q" else { continue }
            let value = pair[1].trimmingWhitespace().trimmingQuotes()
            if let number = Double(value), number.isFinite { quality = min(max(number, 0), 1) }
            break
        }
        return MediaRange(type: String(pieces[0]), subtype: String(pieces[1]), quality: quality)
    }

    /// `MediaRange.list(_:)` before `da471ac`.
    static func mediaRangeList(_ header: String) -> [MediaRange] {
        split(header[...], at: ",").compactMap { mediaRange($0) }
    }

    private static func isToken(_ text: Substring) -> Bool {
        let symbols = Set("!#$%&'*+-.^_`|~".utf8)
        return text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || symbols.contains(byte)
        }
    }

    private static func split(_ text: Substring, at separator: Character) -> [Substring] {
        var parts: [Substring] = []
        var start = text.startIndex
        var quoted = false
        var escaped = false
        for index in text.indices {
            let character = text[index]
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if !quoted && character == separator {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
        }
        parts.append(text[start...])
        return parts
    }

    /// `PercentEscaping.escapeQueryComponent(_:)` before `a5e6b12`.
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

    private static func isAllowedInQueryComponent(_ byte: UInt8) -> Bool {
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

    /// `QueryStringSerializer.string(from:)` before `a5e6b12`: each pair escaped, then joined.
    static func queryString(_ pairs: [QueryPair]) -> String {
        pairs.map { pair in
            let key = escapeQueryComponent(pair.key)
            guard let value = pair.value else { return key }
            return "\(key)=\(escapeQueryComponent(value))"
        }.joined(separator: "&")
    }
}
