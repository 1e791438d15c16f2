extension Duration {
    /// The duration in whole milliseconds, truncated toward zero: what libcurl's `_MS` options, curl's
    /// command line and the transport's coarse clock count in.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// The duration in whole microseconds, truncated toward zero, what libcurl measures times in;
    /// beyond what 64 bits hold (some 292,000 years), the largest or smallest count. (Compared
    /// first: `components` itself traps for a duration of more seconds than 64 bits hold.)
    var wholeMicroseconds: Int64 {
        if self >= .microseconds(Int64.max) { return .max }
        if self <= .microseconds(Int64.min) { return .min }
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    /// The duration in whole nanoseconds, truncated toward zero; beyond what 64 bits hold (some
    /// 292 years), the largest or smallest count.
    var wholeNanoseconds: Int64 {
        if self >= .nanoseconds(Int64.max) { return .max }
        if self <= .nanoseconds(Int64.min) { return .min }
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
