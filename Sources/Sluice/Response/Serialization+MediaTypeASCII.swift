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
            guard let essence = ASCIIHeaderText.typeAndSubtype(bytes, parts[0]) else { return .some(nil) }
            var parameters: [String: String] = [:]
            for part in parts.dropFirst() {
                guard let equals = part.first(where: { bytes[$0] == UInt8(ascii: "=") }) else { continue }
                let name = ASCIIHeaderText.lowercased(bytes, ASCIIHeaderText.trimmed(bytes, part.lowerBound..<equals))
                var value = ASCIIHeaderText.trimmed(bytes, equals + 1..<part.upperBound)
                if value.count >= 2 && bytes[value.lowerBound] == UInt8(ascii: "\"")
                    && bytes[value.upperBound - 1] == UInt8(ascii: "\"")
                {
                    value = value.lowerBound + 1..<value.upperBound - 1
                }
                parameters[name] = String(decoding: UnsafeBufferPointer(rebasing: bytes[value]), as: UTF8.self)
            }
            return .some(
                Serialization.MediaType(
                    type: ASCIIHeaderText.lowercased(bytes, essence.type),
                    subtype: ASCIIHeaderText.lowercased(bytes, essence.subtype), parameters: parameters))
        }
    }
}
