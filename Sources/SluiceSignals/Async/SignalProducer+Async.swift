extension SignalProducer {
    /// A producer that runs `operation` in a new task on every start and sends its result.
    ///
    /// Disposing the subscription cancels the task; the observer gets `interrupted` at once.
    public init(_ operation: @escaping @Sendable () async throws(Failure) -> Value) {
        self.init({ observer, lifetime in
            let task = Task {
                do throws(Failure) {
                    let value = try await operation()
                    observer.send(value: value)
                    observer.sendCompleted()
                } catch {
                    observer.send(error: error)
                }
            }
            lifetime.observeEnded { task.cancel() }
        })
    }
}
