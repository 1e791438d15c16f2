import Synchronization

extension SignalProducer {
    /// Starts the producer and waits for its first value, or for how it ended without one.
    ///
    /// Cancelling the awaiting task disposes the subscription (which interrupts the work).
    /// The subscription is disposed as soon as the first value arrives.
    public func firstEvent() async -> Event<Value, Failure> {
        let waiter = FirstEventWaiter<Value, Failure>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter.install(continuation)
                waiter.attach(self.take(first: 1).start(Observer(waiter.finish)))
            }
        } onCancel: {
            waiter.cancel()
        }
    }

    /// Starts the producer and returns its first value as a `Result`, or nil if it ended without one.
    public func first() async -> Result<Value, Failure>? {
        switch await firstEvent() {
        case .value(let value): return .success(value)
        case .failed(let error): return .failure(error)
        case .completed, .interrupted: return nil
        }
    }
}

extension SignalProducer where Failure: AwaitableFailure {
    /// Starts the producer and returns its first value, throwing its typed failure.
    ///
    /// Cancelling the awaiting task disposes the subscription (a request is cancelled) and throws
    /// `Failure.noValue(.interrupted)`; a stream that completes without a value throws
    /// `Failure.noValue(.completed)`.
    public var value: Value {
        get async throws(Failure) {
            switch await firstEvent() {
            case .value(let value): return value
            case .failed(let error): throw error
            case .completed: throw Failure.noValue(.completed)
            case .interrupted: throw Failure.noValue(.interrupted)
            }
        }
    }
}

extension SignalProducer where Failure == Never {
    /// Starts the producer and returns its first value, or nil if it ended without one.
    /// Cancelling the awaiting task disposes the subscription.
    public var value: Value? {
        get async { await firstEvent().value }
    }
}

/// Joins one producer subscription to one awaiting continuation, whichever side finishes first.
final class FirstEventWaiter<Value: Sendable, Failure: Error>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Event<Value, Failure>, Never>?
        var disposable: (any Disposable)?
        var isCancelled = false
        var isFinished = false
    }

    private let state = Lock(State())

    func install(_ continuation: CheckedContinuation<Event<Value, Failure>, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func attach(_ disposable: any Disposable) {
        let disposeNow = state.withLock { s -> Bool in
            if s.isCancelled || s.isFinished { return true }
            s.disposable = disposable
            return false
        }
        if disposeNow { disposable.dispose() }
    }

    func cancel() {
        let disposable = state.withLock { s -> (any Disposable)? in
            s.isCancelled = true
            defer { s.disposable = nil }
            return s.disposable
        }
        // Disposing interrupts the subscription, whose `interrupted` resumes the awaiting task.
        disposable?.dispose()
    }

    func finish(_ event: Event<Value, Failure>) {
        let continuation = state.withLock { s -> CheckedContinuation<Event<Value, Failure>, Never>? in
            if s.isFinished { return nil }
            s.isFinished = true
            s.disposable = nil
            defer { s.continuation = nil }
            return s.continuation
        }
        continuation?.resume(returning: event)
    }
}
