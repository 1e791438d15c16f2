extension Duration {
    /// The duration in whole milliseconds, truncated toward zero: what libcurl's `_MS` options, curl's
    /// command line and the transport's coarse clock count in; beyond what 64 bits hold (some 292
    /// million years, such as a timeout of `.seconds(Int64.max)`), the largest or smallest count.
    var wholeMilliseconds: Int64 { whole(attosecondsPerUnit: 1_000_000_000_000_000) }

    /// The duration in whole microseconds, truncated toward zero, what libcurl measures times in;
    /// beyond what 64 bits hold (some 292,000 years), the largest or smallest count.
    var wholeMicroseconds: Int64 { whole(attosecondsPerUnit: 1_000_000_000_000) }

    /// The duration in whole nanoseconds, truncated toward zero; beyond what 64 bits hold (some
    /// 292 years), the largest or smallest count.
    var wholeNanoseconds: Int64 { whole(attosecondsPerUnit: 1_000_000_000) }

    /// The duration in whole units of `unit` attoseconds (a divisor of a second's), truncated
    /// toward zero, saturating at 64 bits. Compared first: `components` itself traps for a duration
    /// of more seconds than 64 bits hold.
    private func whole(attosecondsPerUnit unit: Int64) -> Int64 {
        let one = Duration(secondsComponent: 0, attosecondsComponent: unit)
        if self >= one * Int64.max { return .max }
        if self <= one * Int64.min { return .min }
        let (seconds, attoseconds) = components
        return seconds * (1_000_000_000_000_000_000 / unit) + attoseconds / unit
    }
}
