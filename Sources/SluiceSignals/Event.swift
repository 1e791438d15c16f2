/// One event delivered to an observer of a `Signal` or a started `SignalProducer`.
///
/// Every subscription follows the grammar
///
///     value* (failed | completed | interrupted)?
///
/// that is: any number of values, then at most one terminal event, and nothing after it.
/// Events reach one observer serially: never concurrently, never re-entrantly.
/// `interrupted` means the work was cancelled (disposed); it is never reported as a failure.
public enum Event<Value, Failure: Error> {
    /// A value.
    case value(Value)
    /// The stream failed with an error; terminal.
    case failed(Failure)
    /// The stream finished normally; terminal.
    case completed
    /// The stream was cancelled before it finished; terminal.
    case interrupted

    /// Whether this event ends the stream.
    @inlinable
    public var isTerminating: Bool {
        switch self {
        case .value: return false
        case .failed, .completed, .interrupted: return true
        }
    }

    /// The value carried by a `.value` event, or `nil`.
    @inlinable
    public var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }

    /// The error carried by a `.failed` event, or `nil`.
    @inlinable
    public var error: Failure? {
        if case .failed(let error) = self { return error }
        return nil
    }

    /// Whether this is a `.completed` event.
    @inlinable
    public var isCompleted: Bool {
        if case .completed = self { return true }
        return false
    }

    /// Whether this is an `.interrupted` event.
    @inlinable
    public var isInterrupted: Bool {
        if case .interrupted = self { return true }
        return false
    }

    /// The same event with its value transformed.
    @inlinable
    public func map<U>(_ transform: (Value) throws(Failure) -> U) -> Event<U, Failure> {
        switch self {
        case .value(let value):
            do { return .value(try transform(value)) } catch { return .failed(error) }
        case .failed(let error): return .failed(error)
        case .completed: return .completed
        case .interrupted: return .interrupted
        }
    }

    /// The same event with its error transformed.
    @inlinable
    public func mapError<F>(_ transform: (Failure) -> F) -> Event<Value, F> {
        switch self {
        case .value(let value): return .value(value)
        case .failed(let error): return .failed(transform(error))
        case .completed: return .completed
        case .interrupted: return .interrupted
        }
    }
}

extension Event: Sendable where Value: Sendable {}
extension Event: Equatable where Value: Equatable, Failure: Equatable {}

extension Event: CustomStringConvertible {
    /// A short description such as `value(42)` or `failed(timedOut)`.
    public var description: String {
        switch self {
        case .value(let value): return "value(\(value))"
        case .failed(let error): return "failed(\(error))"
        case .completed: return "completed"
        case .interrupted: return "interrupted"
        }
    }
}
