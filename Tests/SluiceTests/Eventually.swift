import Testing

/// Waits until `condition` holds, checking it every 5 ms for at most `timeout`.
///
/// A hang detector, not a timing assertion: the timeouts are far beyond what a healthy run takes.
/// When time is up and `condition` still does not hold, it records an issue at the caller saying
/// what it waited for, and throws, which ends the test there (what follows would only fail in turn).
/// `what` is read only then, so it may describe the state the wait ended in.
///
/// ```swift
/// try await eventually("the retry is scheduled") { scheduler.pendingCount == 1 }
/// ```
func eventually(
    _ what: @autoclosure () -> Comment, timeout: Duration = .seconds(10),
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while !condition() {
        guard clock.now < deadline else {
            try #require(
                condition(), "timed out after \(timeout) waiting for: \(what())", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}
