import FoundationEssentials

extension SignalProducer where Failure == SluiceError {
    /// Fails with `.timedOut` (its `timeout` is `.deadline`) and cancels the work unless the
    /// producer has terminated within `interval` of being started, measured on `scheduler`.
    ///
    /// The error can be told apart from every other by its code, with no error to invent:
    ///
    ///     client.get("slow").timeout(after: .seconds(5)).startWithCompletion { result in
    ///         if case .failure(let error) = result, error.timeout == .deadline { … }
    ///     }
    ///
    /// On a request producer it spans every retry and redirect, as `RequestOptions.deadline` does
    /// (which is the way to give a task or a download a deadline).
    public func timeout(
        after interval: Duration, on scheduler: any DateScheduler = Client.defaultScheduler
    ) -> SignalProducer<Value, SluiceError> {
        timeout(after: interval, raising: .deadlinePassed(interval), on: scheduler)
    }
}

extension SluiceError {
    /// A deadline of `interval` passed before the work finished.
    static func deadlinePassed(_ interval: Duration) -> SluiceError {
        SluiceError(
            .timedOut,
            "The request did not finish within its deadline of \(interval.timeInterval) s (retries and redirects included).",
            timeout: .deadline)
    }
}
