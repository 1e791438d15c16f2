import FoundationEssentials

/// Parses `Retry-After` (RFC 9110 §10.2.3): a number of seconds, or an HTTP-date.
enum RetryAfter {
    /// The wait the value asks for, or nil when it is neither form. A date in the past means now.
    static func delay(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingWhitespace()
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Digits only; a value too long for an Int is simply very large.
            return .seconds(Int64(text) ?? Int64.max / 1_000_000_000_000)
        }
        guard let date = HTTPDate.parse(text, now: now) else { return nil }
        return .timeInterval(max(0, date.timeIntervalSince(now)))
    }
}
