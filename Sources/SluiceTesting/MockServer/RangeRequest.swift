/// A `Range: bytes=…` header resolved against a body of known length (one range only).
enum RangeRequest: Equatable {
    /// Serve the whole body with 200 (no range, a multi-range or an unparsable one).
    case whole
    /// Serve these bytes with 206.
    case partial(ClosedRange<Int>)
    /// Nothing of the range exists: 416.
    case unsatisfiable

    /// Resolves `header` (e.g. `bytes=0-99`, `bytes=100-`, `bytes=-20`) against `length` bytes.
    init(header: String?, length: Int) {
        guard let header else {
            self = .whole
            return
        }
        let trimmed = header.trimmingWhitespace()
        guard trimmed.lowercased().hasPrefix("bytes=") else {
            self = .whole
            return
        }
        let spec = trimmed.dropFirst("bytes=".count).trimmingWhitespace()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let first = spec[..<dash].trimmingWhitespace()
        let last = spec[spec.index(after: dash)...].trimmingWhitespace()
        switch (Int(first), Int(last)) {
        case (let start?, nil) where last.isEmpty && start >= 0:
            self = start < length ? .partial(start...(length - 1)) : .unsatisfiable
        case (let start?, let end?) where start >= 0 && end >= start:
            self = start < length ? .partial(start...min(end, length - 1)) : .unsatisfiable
        case (nil, let suffix?) where first.isEmpty && suffix >= 0:
            self = suffix > 0 && length > 0 ? .partial(max(0, length - suffix)...(length - 1)) : .unsatisfiable
        default:
            self = .whole
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let c = slice.first, c == " " || c == "\t" { slice = slice.dropFirst() }
        while let c = slice.last, c == " " || c == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
