/// A 206 response's `Content-Range: bytes FIRST-LAST/COMPLETE` (the complete length may be `*`),
/// or a 416's `bytes */COMPLETE`: where the bytes of a partial body belong.
struct ContentRange: Equatable, Sendable {
    /// The first and last byte the body holds (both included); nil for a 416's unsatisfied range.
    var bytes: ClosedRange<Int64>?
    /// The length of the whole representation, when the server knows it.
    var completeLength: Int64?

    init(bytes: ClosedRange<Int64>?, completeLength: Int64?) {
        self.bytes = bytes
        self.completeLength = completeLength
    }

    /// Reads `text`; nil when it is not a single byte range this type describes (another unit, a
    /// last byte before the first, a complete length the range does not fit in, digits that
    /// overflow, a last byte whose end `Int64` cannot count).
    init?(_ text: String) {
        var rest = Substring(text).drop { $0 == " " || $0 == "\t" }
        guard rest.lowercased().hasPrefix("bytes ") else { return nil }
        rest = rest.dropFirst("bytes ".count).drop { $0 == " " }
        while let last = rest.last, last == " " || last == "\t" { rest = rest.dropLast() }
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let range = rest[..<slash]
        let complete = rest[rest.index(after: slash)...]
        if complete == "*" {
            completeLength = nil
        } else {
            guard let length = Self.number(complete) else { return nil }
            completeLength = length
        }
        if range == "*" {
            guard completeLength != nil else { return nil }
            bytes = nil
            return
        }
        guard let dash = range.firstIndex(of: "-"), let first = Self.number(range[..<dash]),
            let last = Self.number(range[range.index(after: dash)...]), first <= last,
            // The bytes up to it must be countable: `last + 1` ends the range.
            last < Int64.max
        else { return nil }
        if let completeLength, last >= completeLength { return nil }
        bytes = first...last
    }

    /// Decimal digits only (no sign, no spaces), within `Int64`.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int64(text)
    }
}
