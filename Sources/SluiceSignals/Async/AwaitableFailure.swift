/// How a stream ended without the value an `await` was waiting for.
public enum StreamEnding: Sendable, Equatable {
    /// The stream completed without sending a value.
    case completed
    /// The stream was interrupted, e.g. because the awaiting task was cancelled.
    case interrupted
}

/// A failure type that can also say that a stream ended without a value, so that
/// `producer.value` can throw it instead of returning an optional.
///
/// `SluiceError` conforms: awaiting a cancelled request throws its `cancelled` case.
public protocol AwaitableFailure: Error {
    /// The error to throw when the awaited stream ended without a value.
    static func noValue(_ ending: StreamEnding) -> Self
}
