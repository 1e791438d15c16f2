import Synchronization

/// The values of a `Signal` or a `SignalProducer` as an `AsyncSequence` that throws the stream's
/// typed failure.
///
/// Each iterator makes its own subscription (a producer is started, a signal observed) when it
/// is created; the subscription is disposed when the iterator is released or the iterating task
/// is cancelled, and the sequence then ends. Values are buffered without bound while the consumer
/// is busy, so keep it for streams the consumer can keep up with.
public struct AsyncSignalValues<Value: Sendable, Failure: Error>: AsyncSequence, Sendable {
    /// The type of values.
    public typealias Element = Value

    private let subscribe: @Sendable (Observer<Value, Failure>) -> (any Disposable)?

    init(subscribe: @escaping @Sendable (Observer<Value, Failure>) -> (any Disposable)?) {
        self.subscribe = subscribe
    }

    /// Subscribes and returns an iterator over the values.
    public func makeAsyncIterator() -> Iterator {
        let buffer = AsyncEventBuffer<Value, Failure>()
        buffer.attach(subscribe(Observer { [weak buffer] event in buffer?.receive(event) }))
        return Iterator(buffer: buffer)
    }

    /// Iterates over the values; ends after completion or interruption, throws the failure.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let buffer: AsyncEventBuffer<Value, Failure>

        /// The next value, or nil when the stream has ended.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(Failure) -> Value? {
            try await buffer.next()
        }

        /// The next value, or nil when the stream has ended.
        public mutating func next() async throws(Failure) -> Value? {
            try await buffer.next()
        }
    }
}

extension SignalProducer {
    /// The values of this producer as an `AsyncSequence`; each iteration starts the producer anew.
    public var values: AsyncSignalValues<Value, Failure> {
        AsyncSignalValues { observer in self.start(observer) }
    }
}

extension Signal {
    /// The values this signal sends from now on, as an `AsyncSequence`.
    public var values: AsyncSignalValues<Value, Failure> {
        AsyncSignalValues { observer in self.observe(observer) }
    }
}

/// Buffers events between a subscription and one consuming task.
final class AsyncEventBuffer<Value: Sendable, Failure: Error>: Sendable {
    private struct State {
        var values: [Value] = []
        var head = 0
        var terminal: Event<Value, Failure>?
        var waiter: CheckedContinuation<Void, Never>?
        var disposable: (any Disposable)?
        var isDisposed = false

        /// The next buffered value, else the terminal event (it stays, so later calls end too).
        mutating func take() -> Event<Value, Failure>? {
            if head < values.count {
                let value = values[head]
                head += 1
                if head == values.count {
                    values.removeAll(keepingCapacity: true)
                    head = 0
                }
                return .value(value)
            }
            return terminal
        }
    }

    private let state = Lock(State())

    func attach(_ disposable: (any Disposable)?) {
        let disposeNow = state.withLock { s -> Bool in
            if s.isDisposed { return true }
            s.disposable = disposable
            return false
        }
        if disposeNow { disposable?.dispose() }
    }

    func receive(_ event: Event<Value, Failure>) {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard s.terminal == nil else { return nil }
            if case .value(let value) = event {
                s.values.append(value)
            } else {
                s.terminal = event
                s.disposable = nil
            }
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    func next() async throws(Failure) -> Value? {
        while true {
            if let outcome = state.withLock({ s in s.take() }) {
                switch outcome {
                case .value(let value): return value
                case .failed(let error): throw error
                case .completed, .interrupted: return nil
                }
            }
            if Task.isCancelled {
                dispose()
                continue
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready = state.withLock { s -> Bool in
                        if s.head < s.values.count || s.terminal != nil { return true }
                        s.waiter = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            } onCancel: {
                self.dispose()
            }
        }
    }

    /// Ends the subscription; the consumer sees the end of the sequence.
    func dispose() {
        let (disposable, waiter) = state.withLock { s -> ((any Disposable)?, CheckedContinuation<Void, Never>?) in
            s.isDisposed = true
            if s.terminal == nil { s.terminal = .interrupted }
            defer {
                s.disposable = nil
                s.waiter = nil
            }
            return (s.disposable, s.waiter)
        }
        disposable?.dispose()
        waiter?.resume()
    }

    deinit {
        state.withLock { $0.disposable }?.dispose()
    }
}
