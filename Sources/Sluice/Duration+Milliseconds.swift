extension Duration {
    /// The duration in whole milliseconds, truncated toward zero: what libcurl's `_MS` options, curl's
    /// command line and the transport's coarse clock count in.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// A duration of `microseconds`, as libcurl's `_TIME_T` figures count: made from its
    /// components, which costs a fraction of `.microseconds(_:)` (a checked 128-bit product).
    static func curlMicroseconds(_ microseconds: Int64) -> Duration {
        let (seconds, remainder) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        return Duration(secondsComponent: seconds, attosecondsComponent: remainder * 1_000_000_000_000)
    }
}
