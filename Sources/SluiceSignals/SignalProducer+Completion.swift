import Synchronization

extension SignalProducer where Failure: AwaitableFailure {
    /// Starts the work and calls `completion` exactly once, as a completion handler is called:
    ///
    /// - with the last value, when the producer completes after sending one;
    /// - with the failure, when it fails;
    /// - with `Failure.noValue(.interrupted)` when the work is interrupted before any value: the
    ///   returned disposable was disposed, or something else cancelled it (`Client.cancelAll`, a
    ///   task's `cancel()`). For Sluice's requests that is a `SluiceError` whose code is
    ///   `.cancelled`. Interrupted after a value (the response had arrived), with that value;
    /// - with `Failure.noValue(.completed)` when it completes without a value.
    ///
    /// The stream contract is unchanged (an interruption is not a failure): this is the form for
    /// callers who think in completion handlers and must hear about every ending, cancellations
    /// included. `startWithResult` keeps reporting values and failures only.
    ///
    ///     let request = client.get("users/42").startWithCompletion { result in
    ///         switch result {
    ///         case .success(let response): print(response.status)
    ///         case .failure(let error) where error.isCancelled: print("cancelled")
    ///         case .failure(let error): print(error)
    ///         }
    ///     }
    ///     request.dispose()  // the handler runs with `.cancelled`
    @discardableResult
    public func startWithCompletion(_ completion: @escaping @Sendable (Result<Value, Failure>) -> Void)
        -> any Disposable
    {
        let last = Mutex<Value?>(nil)
        return start { event in
            switch event {
            case .value(let value): last.withLock { $0 = value }
            case .failed(let error): completion(.failure(error))
            case .interrupted:
                // Interrupted after its value (the response had arrived): it ended with that value.
                if let value = last.withLock({ $0 }) {
                    completion(.success(value))
                } else {
                    completion(.failure(.noValue(.interrupted)))
                }
            case .completed:
                if let value = last.withLock({ $0 }) {
                    completion(.success(value))
                } else {
                    completion(.failure(.noValue(.completed)))
                }
            }
        }
    }
}
