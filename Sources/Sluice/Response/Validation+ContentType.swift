import FoundationEssentials

/// A media range of an `Accept` header or a `Content-Type` (`text/html`, `text/*`, `*/*`), with
/// its quality; other parameters (`charset`, accept extensions) are ignored, and names are lowercased.
struct MediaRange: Sendable, Equatable {
    /// The type, or `*`.
    let type: String
    /// The subtype, or `*`.
    let subtype: String
    /// The `q` parameter, from 0 (not acceptable) to 1 (the default).
    let quality: Double

    /// Parses one element such as `application/json; charset=utf-8` or `text/*;q=0.5`; a bare `*`
    /// means `*/*`. Nil when it is not `type/subtype`.
    init?(_ text: Substring) {
        let parts = MediaRange.split(text, at: ";")
        let name = parts.first.map { $0.trimmingWhitespace().lowercased() } ?? ""
        let pieces = name == "*" ? ["*", "*"] : name.split(separator: "/", omittingEmptySubsequences: false)
        guard pieces.count == 2, pieces.allSatisfy({ !$0.isEmpty && MediaRange.isToken($0) }) else { return nil }
        type = String(pieces[0])
        subtype = String(pieces[1])
        var quality = 1.0
        // The first `q` ends the media-type parameters; anything after it is an accept extension.
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingWhitespace().lowercased() == "q" else { continue }
            let value = pair[1].trimmingWhitespace().trimmingQuotes()
            // A malformed q is read leniently as the default (1) rather than as a refusal.
            if let number = Double(value), number.isFinite { quality = min(max(number, 0), 1) }
            break
        }
        self.quality = quality
    }

    /// The ranges of a comma-separated list such as an `Accept` header; malformed elements are skipped.
    static func list(_ header: String) -> [MediaRange] {
        asciiList(header) ?? characterList(header)
    }

    /// `list(_:)` read character by character: for any header.
    static func characterList(_ header: String) -> [MediaRange] {
        split(header[...], at: ",").compactMap { MediaRange($0) }
    }

    /// The ranges of a request's `Accept` headers, or nil when it has none that parse (no check then).
    static func accepted(by request: Request) -> [MediaRange]? {
        // Most requests have no Accept: one lookup, without gathering its values into an array.
        guard request.headers.contains("Accept") else { return nil }
        let ranges = request.headers.values(for: "Accept").flatMap(list)
        return ranges.isEmpty ? nil : ranges
    }

    /// `type/subtype`.
    var name: String { "\(type)/\(subtype)" }

    /// 2 for `type/subtype`, 1 for `type/*`, 0 for `*/*`: the most specific matching range decides.
    var specificity: Int { (type == "*" ? 0 : 1) + (subtype == "*" ? 0 : 1) }

    /// Whether this range covers `other`'s type (a concrete response type).
    func matches(_ other: MediaRange) -> Bool {
        (type == "*" || type == other.type) && (subtype == "*" || subtype == other.subtype)
    }

    /// Whether `type` is acceptable: the most specific ranges matching it must have a quality above 0.
    static func isAcceptable(_ type: MediaRange, in ranges: [MediaRange]) -> Bool {
        let matching = ranges.filter { $0.matches(type) }
        guard let specificity = matching.map(\.specificity).max() else { return false }
        return matching.filter { $0.specificity == specificity }.contains { $0.quality > 0 }
    }

    /// Whether the ranges accept any type, through `*/*` with a quality above 0.
    static func acceptsAnything(_ ranges: [MediaRange]) -> Bool {
        ranges.contains { $0.specificity == 0 && $0.quality > 0 }
    }

    /// The acceptable ranges as a message names them, e.g. `application/json, text/*`.
    static func describe(_ ranges: [MediaRange]) -> String {
        var names: [String] = []
        for range in ranges where range.quality > 0 && !names.contains(range.name) { names.append(range.name) }
        return names.isEmpty ? "nothing" : names.joined(separator: ", ")
    }

    /// Whether `text` is an HTTP token (RFC 9110): letters, digits and ``!#$%&'*+-.^_`|~``.
    private static func isToken(_ text: Substring) -> Bool {
        text.utf8.allSatisfy(isTokenByte)
    }

    /// `text` split at `separator` where it is outside a quoted string (which may hold `\"`).
    private static func split(_ text: Substring, at separator: Character) -> [Substring] {
        // A one-byte separator only: `Character("\r\n").asciiValue` is LF's.
        if separator.utf8.count == 1, let byte = separator.asciiValue, let parts = splitASCII(text, at: byte) {
            return parts
        }
        return splitCharacters(text, at: separator)
    }

    /// `split(_:at:)` character by character, for any text.
    static func splitCharacters(_ text: Substring, at separator: Character) -> [Substring] {
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

    /// `split(_:at:)` over the bytes of ASCII text, where each byte is a character: the same
    /// parts without breaking the text into characters; nil when the text is not ASCII.
    static func splitASCII(_ text: Substring, at separator: UInt8) -> [Substring]? {
        let utf8 = text.utf8
        if utf8.contains(where: { $0 >= 0x80 }) { return nil }
        var parts: [Substring] = []
        var start = utf8.startIndex
        var quoted = false
        var escaped = false
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if escaped {
                escaped = false
            } else if quoted && byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                quoted.toggle()
            } else if !quoted && byte == separator {
                parts.append(text[start..<index])
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        parts.append(text[start...])
        return parts
    }
}
