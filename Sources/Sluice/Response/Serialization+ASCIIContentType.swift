extension Serialization {
    /// Reads an ASCII `Content-Type` header's `type/subtype` from its bytes and matches it against
    /// acceptable patterns, making no string: the check every decoding serializer makes on every
    /// response (`MediaType`, which splits, trims and lowercases strings, took ~23,000
    /// instructions to accept `application/json` among the four JSON patterns).
    ///
    /// Only an acceptance is taken from it. A header that is not ASCII or not `type/subtype`, a
    /// pattern that is not ASCII, or no match leaves the decision to `MediaType`, which gives the
    /// reason of a refusal; for ASCII text the two read a header alike (`;`, `/`, spaces and tabs
    /// are single characters there, and lowercasing is ASCII's).
    enum ASCIIContentType {
        /// Whether the media type of `header` matches one of `patterns` as `MediaType.matches`
        /// would; false when it cannot tell.
        static func accepts(_ header: String, anyOf patterns: [String]) -> Bool {
            header.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
                guard let essence = Essence(bytes) else { return false }
                for pattern in patterns {
                    let matches = pattern.utf8.withContiguousStorageIfAvailable { essence.matches($0) } ?? false
                    if matches { return true }
                }
                return false
            } ?? false
        }

        /// Where the type and the subtype lie in a header's bytes.
        private struct Essence {
            let bytes: UnsafeBufferPointer<UInt8>
            let type: Range<Int>
            let subtype: Range<Int>

            /// The essence of an ASCII header: the text before its first `;`, trimmed of spaces and
            /// tabs, split at its only `/` into two non-empty parts; nil otherwise.
            init?(_ bytes: UnsafeBufferPointer<UInt8>) {
                var end = bytes.count
                for index in 0..<bytes.count {
                    let byte = bytes[index]
                    if byte >= 0x80 { return nil }
                    if byte == UInt8(ascii: ";") && end == bytes.count { end = index }
                }
                guard let parts = ASCIIHeaderText.typeAndSubtype(bytes, 0..<end) else { return nil }
                self.bytes = bytes
                type = parts.type
                subtype = parts.subtype
            }

            /// `MediaType.matches`: `*/*`, then `*/*+suffix` (the subtype ends with `+suffix`), then
            /// `type/*`, then the whole essence, all without regard to ASCII case.
            func matches(_ pattern: UnsafeBufferPointer<UInt8>) -> Bool {
                if pattern.contains(where: { $0 >= 0x80 }) { return false }
                let count = pattern.count
                if count == 3 && equal(pattern, 0..<3, to: "*/*") { return true }
                if count >= 4 && equal(pattern, 0..<4, to: "*/*+") {
                    let suffix = count - 3
                    guard subtype.count >= suffix else { return false }
                    return equal(pattern, 3..<count, subtype.upperBound - suffix..<subtype.upperBound)
                }
                if count >= 2 && equal(pattern, count - 2..<count, to: "/*") {
                    return count - 2 == type.count && equal(pattern, 0..<count - 2, type)
                }
                return count == type.count + 1 + subtype.count && equal(pattern, 0..<type.count, type)
                    && pattern[type.count] == UInt8(ascii: "/")
                    && equal(pattern, type.count + 1..<count, subtype)
            }

            /// Whether `pattern[range]` equals the header's bytes at `header`, ignoring ASCII case.
            private func equal(_ pattern: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ header: Range<Int>)
                -> Bool
            {
                guard range.count == header.count else { return false }
                for offset in 0..<range.count
                where Self.lower(pattern[range.lowerBound + offset]) != Self.lower(bytes[header.lowerBound + offset]) {
                    return false
                }
                return true
            }

            /// Whether `pattern[range]` is `literal` (lowercase ASCII), ignoring ASCII case.
            private func equal(_ pattern: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, to literal: StaticString)
                -> Bool
            {
                guard range.count == literal.utf8CodeUnitCount else { return false }
                let text = literal.utf8Start
                for offset in 0..<range.count where Self.lower(pattern[range.lowerBound + offset]) != text[offset] {
                    return false
                }
                return true
            }

            private static func lower(_ byte: UInt8) -> UInt8 { ASCIIHeaderText.lowercase(byte) }
        }
    }
}
