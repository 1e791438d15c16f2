/// A response's header field lines exactly as they were received (without the status line and the
/// blank line that ends the block), read on demand.
///
/// Most responses' headers are never read, or only one or two of them: making a name and a value
/// string of every line as it arrived cost more than the rest of receiving a small response in
/// Swift. `HTTPHeaders` keeps these lines until it is changed, answers lookups by scanning them,
/// and makes the fields only for what needs them all (iteration, comparison).
///
/// A line is read as the transport's parser has always read it: the line break removed, no colon
/// means no field, the name is everything before the first colon, and the value is the rest
/// without the spaces and tabs around it.
struct RawHeaderLines: Sendable, Hashable {
    /// The lines, each ending with its line break.
    let bytes: [UInt8]

    /// Calls `body` with the name and the value of each field line, in order, until it returns false.
    func forEachField(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool) {
        bytes.withUnsafeBufferPointer { all in
            var lineStart = 0
            while lineStart < all.count {
                var lineEnd = lineStart
                while lineEnd < all.count && all[lineEnd] != 0x0A { lineEnd += 1 }
                let next = lineEnd + 1
                if let (name, value) = Self.field(in: UnsafeBufferPointer(rebasing: all[lineStart..<lineEnd])) {
                    if !body(name, value) { return }
                }
                lineStart = next
            }
        }
    }

    /// The name and the value of one line (its LF already removed), or nil if it is not a field.
    static func field(in line: UnsafeBufferPointer<UInt8>) -> (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>)?
    {
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        guard end > 0, let colon = line[0..<end].firstIndex(of: UInt8(ascii: ":")) else { return nil }
        var valueStart = colon + 1
        while valueStart < end, isOptionalWhitespace(line[valueStart]) { valueStart += 1 }
        var valueEnd = end
        while valueEnd > valueStart, isOptionalWhitespace(line[valueEnd - 1]) { valueEnd -= 1 }
        return (
            UnsafeBufferPointer(rebasing: line[0..<colon]), UnsafeBufferPointer(rebasing: line[valueStart..<valueEnd])
        )
    }

    /// Every field, in order.
    func fields() -> [HTTPHeaders.Field] {
        var fields: [HTTPHeaders.Field] = []
        forEachField { name, value in
            fields.append(
                HTTPHeaders.Field(
                    name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
            return true
        }
        return fields
    }

    /// The values of the fields named `name` (in any case), in order; at most `limit` of them.
    func values(for name: String, limit: Int = .max) -> [String] {
        var values: [String] = []
        var bytes = name
        bytes.withUTF8 { wanted in
            forEachField { fieldName, value in
                if Self.nameMatches(fieldName, wanted, name) {
                    values.append(String(decoding: value, as: UTF8.self))
                }
                return values.count < limit
            }
        }
        return values
    }

    /// Whether a field is named `name` (in any case).
    func contains(_ name: String) -> Bool {
        var found = false
        var bytes = name
        bytes.withUTF8 { wanted in
            forEachField { fieldName, _ in
                found = Self.nameMatches(fieldName, wanted, name)
                return !found
            }
        }
        return found
    }

    /// The number of field lines.
    var count: Int {
        var count = 0
        forEachField { _, _ in
            count += 1
            return true
        }
        return count
    }

    /// Whether the lines hold no field.
    var isEmpty: Bool {
        var empty = true
        forEachField { _, _ in
            empty = false
            return false
        }
        return empty
    }

    /// Whether a line's name is `name` (whose bytes are `wanted`), as `caseInsensitiveEquals`
    /// compares the name's decoded string: a name that is not valid UTF-8 reads as its decoded
    /// form (with U+FFFD), so it is compared decoded, as iteration shows it.
    private static func nameMatches(
        _ fieldName: UnsafeBufferPointer<UInt8>, _ wanted: UnsafeBufferPointer<UInt8>, _ name: String
    )
        -> Bool
    {
        if !fieldName.contains(where: { $0 >= 0x80 }) { return String.asciiCaseInsensitiveEqual(fieldName, wanted) }
        return String(decoding: fieldName, as: UTF8.self).caseInsensitiveEquals(name)
    }

    /// HTTP's optional whitespace around a field value (RFC 9110 §5.6.3): space and horizontal tab.
    static func isOptionalWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }
}
