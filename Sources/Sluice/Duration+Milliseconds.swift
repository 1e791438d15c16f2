extension Duration {
    /// The duration in whole milliseconds, truncated toward zero: what libcurl's `_MS` options, curl's
    /// command line and the transport's coarse clock count in.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// The duration in whole microseconds, truncated toward zero, what libcurl measures times in;
    /// beyond what 64 bits hold (some 292,000 years), the largest or smallest count.
    var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = whole.addingReportingOverflow(attoseconds / 1_000_000_000_000)
        return overflow2 ? (seconds < 0 ? .min : .max) : sum
    }
}
