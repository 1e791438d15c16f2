extension Serialization.MediaType {
    /// `parseCharacters(_:)` over the bytes of an ASCII header without a carriage return, where
    /// every byte is a character: the same type, subtype and parameters, without breaking the text
    /// into characters, trimming and lowercasing strings (a `text/plain; charset=utf-8` took
    /// ~26,000 instructions that way). Nil when the header is not such text; `.some(nil)` when it
    /// is, but has no `type/subtype`.
    static func parseASCII(_ header: String) -> Serialization.MediaType?? {
        var text = header
        return text.withUTF8 { bytes -> Serialization.MediaType?? in
            if bytes.contains(where: { $0 >= 0x80 || $0 == UInt8(ascii: "\r") }) { return nil }
            // The parts between semicolons (quotes do not count, as in `parseCharacters`).
            var parts: [Range<Int>] = []
            var start = 0
            for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: ";") {
                parts.append(start..<index)
                start = index + 1
            }
            let essence = trimmed(bytes, parts[0])
            var slash = -1
            for index in essence where bytes[index] == UInt8(ascii: "/") {
                if slash >= 0 { return .some(nil) }
                slash = index
            }
            guard slash > essence.lowerBound, slash + 1 < essence.upperBound else { return .some(nil) }
            var parameters: [String: String] = [:]
            for part in parts.dropFirst() {
                guard let equals = part.first(where: { bytes[$0] == UInt8(ascii: "=") }) else { continue }
                let name = lowercased(bytes, trimmed(bytes, part.lowerBound..<equals))
                var value = trimmed(bytes, equals + 1..<part.upperBound)
                if value.count >= 2 && bytes[value.lowerBound] == UInt8(ascii: "\"")
                    && bytes[value.upperBound - 1] == UInt8(ascii: "\"")
                {
                    value = value.lowerBound + 1..<value.upperBound - 1
                }
                parameters[name] = String(decoding: UnsafeBufferPointer(rebasing: bytes[value]), as: UTF8.self)
            }
            return .some(
                Serialization.MediaType(
                    type: lowercased(bytes, essence.lowerBound..<slash),
                    subtype: lowercased(bytes, slash + 1..<essence.upperBound), parameters: parameters))
        }
    }

    /// `range` without the spaces and tabs at either end.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var start = range.lowerBound
        var end = range.upperBound
        while start < end && (bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t")) { start += 1 }
        while end > start && (bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t")) { end -= 1 }
        return start..<end
    }

    /// The bytes of `range` as a string, ASCII letters lowercased.
    private static func lowercased(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(unsafeUninitializedCapacity: range.count) { buffer in
            for offset in 0..<range.count {
                let byte = bytes[range.lowerBound + offset]
                buffer[offset] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
            }
            return range.count
        }
    }
}
