/// A task executor that runs jobs on a `CurlTransport`'s loop thread, between the loop's rounds
/// of libcurl work.
///
/// It holds the loop's lifetime, not the transport: the loop outlives every task that prefers it,
/// and each queued job holds the executor until the loop has run it.
final class LoopExecutor: TaskExecutor {
    /// Keeps the loop running while this executor exists (see `LoopLifetime`).
    private let lifetime: LoopLifetime

    init(lifetime: LoopLifetime) {
        self.lifetime = lifetime
    }

    func enqueue(_ job: consuming ExecutorJob) {
        lifetime.queue.send(.run(UnownedJob(job), self))
    }
}

/// What keeps a transport's loop thread running: the transport and its executor hold it, and the
/// last of them to go tells the loop to shut down.
final class LoopLifetime: Sendable {
    /// The loop's commands.
    let queue: CommandQueue

    init(queue: CommandQueue) {
        self.queue = queue
    }

    deinit {
        queue.send(.shutdown)
    }
}
