/// What the byte-level readers of header text share: for ASCII text, where each byte is a
/// character, these give what `trimmingWhitespace()` and `lowercased()` give on strings.
enum ASCIIHeaderText {
    /// A space or a tab: the ASCII whitespace `trimmingWhitespace()` removes.
    static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// The byte with an ASCII capital letter made small.
    static func lowercase(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }

    /// `range` without the spaces and tabs at either end.
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var start = range.lowerBound
        var end = range.upperBound
        while start < end && isBlank(bytes[start]) { start += 1 }
        while end > start && isBlank(bytes[end - 1]) { end -= 1 }
        return start..<end
    }

    /// `range` trimmed of spaces and tabs and split at its only `/` into a type and a subtype, both
    /// non-empty; nil when there is no `/`, more than one, or an empty side.
    static func typeAndSubtype(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>)
        -> (type: Range<Int>, subtype: Range<Int>)?
    {
        let essence = trimmed(bytes, range)
        var slash = -1
        for index in essence where bytes[index] == UInt8(ascii: "/") {
            if slash >= 0 { return nil }
            slash = index
        }
        guard slash > essence.lowerBound, slash + 1 < essence.upperBound else { return nil }
        return (essence.lowerBound..<slash, slash + 1..<essence.upperBound)
    }

    /// The bytes of `range` as a string, ASCII letters lowercased.
    static func lowercased(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(unsafeUninitializedCapacity: range.count) { buffer in
            for offset in 0..<range.count { buffer[offset] = lowercase(bytes[range.lowerBound + offset]) }
            return range.count
        }
    }
}
