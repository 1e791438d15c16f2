import Synchronization

extension SignalProducer {
    /// Starts the producer and waits for its first value, or for how it ended without one.
    ///
    /// Cancelling the awaiting task disposes the subscription (which interrupts the work).
    /// The subscription is disposed as soon as the first value arrives.
    @inlinable
    public func firstEvent() async -> Event<Value, Failure> {
        // Inlinable, like the waiter, so that a caller's concrete types reach this code: generic
        // code here would look up the metadata of `Event` and the continuation at run time, several
        // times per await. The waiter takes the first event and disposes the subscription itself
        // (no `take(first: 1)` layer in between), whatever the event: it needs no sink of `start`
        // between it and the work, which would only repeat that.
        let waiter = FirstEventWaiter<Value, Failure>()
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                waiter.install(continuation)
                // Attached before the work starts, so that the first event, even one sent during
                // the start, ends the subscription's lifetime at once (as `start` does: a
                // synchronous sequence stops after its first value), and a task cancelled already
                // starts the work with its lifetime ended.
                let subscription = CompositeDisposable()
                waiter.attach(subscription)
                self.startHandler(Observer(waiter.finish), Lifetime(subscription))
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
    @inlinable
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
    @inlinable
    public var value: Value? {
        get async { await firstEvent().value }
    }
}

/// Joins one producer subscription to one awaiting continuation, whichever side finishes first.
///
/// The continuation is resumed exactly once: by the first event, which every subscription
/// eventually sends (disposal sends `interrupted`), and never again after it (`isFinished`).
@usableFromInline
final class FirstEventWaiter<Value: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    struct State {
        @usableFromInline var continuation: UnsafeContinuation<Event<Value, Failure>, Never>?
        @usableFromInline var disposable: (any Disposable)?
        @usableFromInline var isCancelled = false
        @usableFromInline var isFinished = false

        @inlinable
        init() {}
    }

    @usableFromInline
    let state = Lock(State())

    @inlinable
    init() {}

    @inlinable
    func install(_ continuation: UnsafeContinuation<Event<Value, Failure>, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Keeps the subscription for `cancel`, or disposes it at once if the waiter is already done.
    @inlinable
    func attach(_ disposable: any Disposable) {
        let disposeNow = state.withLock { s -> Bool in
            if s.isCancelled || s.isFinished { return true }
            s.disposable = disposable
            return false
        }
        if disposeNow { disposable.dispose() }
    }

    @inlinable
    func cancel() {
        let disposable = state.withLock { s -> (any Disposable)? in
            s.isCancelled = true
            defer { s.disposable = nil }
            return s.disposable
        }
        // Disposing interrupts the subscription, whose `interrupted` resumes the awaiting task.
        disposable?.dispose()
    }

    /// Resumes the awaiting task with the first event and ends the subscription (a
    /// subscription not attached yet is disposed by `attach`).
    @inlinable
    func finish(_ event: Event<Value, Failure>) {
        let (continuation, disposable) = state.withLock {
            s -> (UnsafeContinuation<Event<Value, Failure>, Never>?, (any Disposable)?) in
            if s.isFinished { return (nil, nil) }
            s.isFinished = true
            defer {
                s.continuation = nil
                s.disposable = nil
            }
            return (s.continuation, s.disposable)
        }
        guard let continuation else { return }
        // After a terminal event too: that ends the subscription's lifetime, as `start` would.
        disposable?.dispose()
        continuation.resume(returning: event)
    }
}
