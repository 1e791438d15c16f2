/// A task executor that runs jobs on a `CurlTransport`'s loop thread, between the loop's rounds
/// of libcurl work.
///
/// It holds its transport, so the loop outlives every task that prefers it: a job is only ever
/// queued while a task's preference (which keeps its executor) is in force.
final class LoopExecutor: TaskExecutor {
    /// The transport whose loop runs the jobs; held so that it is not shut down under a task.
    private let transport: CurlTransport
    private let queue: CommandQueue

    init(transport: CurlTransport, queue: CommandQueue) {
        self.transport = transport
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        queue.send(.run(UnownedJob(job), asUnownedTaskExecutor()))
    }
}
