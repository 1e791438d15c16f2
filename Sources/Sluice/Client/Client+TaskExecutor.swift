extension Client {
    /// An executor that runs tasks on the thread that delivers this client's responses (the
    /// transport's, see `CurlTransport.taskExecutor`), or nil when the transport has none.
    ///
    /// Async code that sends one request after another in a task that prefers it awaits each
    /// response without a thread hop:
    ///
    ///     try await withTaskExecutorPreference(client.taskExecutor) {
    ///         for id in ids { try await client.delete("items/\(id)").validate().value }
    ///     }
    ///
    /// The transport serves no other request while such a task runs: keep the code between awaits
    /// short and never block in it.
    public var taskExecutor: (any TaskExecutor)? { transport.taskExecutor }
}
