extension Duration {
    /// The duration in whole milliseconds, truncated toward zero: what libcurl's `_MS` options, curl's
    /// command line and the transport's coarse clock count in.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
