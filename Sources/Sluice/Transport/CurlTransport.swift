import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The transport Sluice uses: libcurl's multi interface, driven by one dedicated thread.
///
/// Every libcurl call happens on that thread; requests from other threads reach it through a
/// command queue and an eventfd that wakes `curl_multi_poll`. Connections are reused and HTTP/2
/// is negotiated over TLS and multiplexed. Bodies stream both ways. Observers of a transfer run on
/// the loop thread: keep them short, or move work elsewhere with `observe(on:)`.
public final class CurlTransport: Transport {
    /// Limits of a transport's connection pool.
    public struct Configuration: Sendable, Equatable {
        /// The most connections open at once (0 for no limit); further transfers wait their turn.
        public var maximumConnections: Int
        /// The most connections to one host at once (0 for no limit).
        public var maximumConnectionsPerHost: Int
        /// How many idle connections are kept for reuse (libcurl's CURLMOPT_MAXCONNECTS).
        public var connectionCacheSize: Int

        /// The default limits, or the ones given.
        public init(maximumConnections: Int = 256, maximumConnectionsPerHost: Int = 64, connectionCacheSize: Int = 128)
        {
            self.maximumConnections = maximumConnections
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.connectionCacheSize = connectionCacheSize
        }
    }

    /// The configuration this transport was made with.
    public let configuration: Configuration
    private let queue: CommandQueue
    /// Keeps the loop running while this transport or its executor exists.
    private let lifetime: LoopLifetime
    private let executor: LoopExecutor

    /// A transport shared by clients that do not bring their own.
    public static let shared = CurlTransport()

    /// Creates a transport and starts its loop thread.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        queue = CommandQueue()
        lifetime = LoopLifetime(queue: queue)
        executor = LoopExecutor(lifetime: lifetime)
        LoopThread.start(queue: queue, configuration: configuration)
    }

    /// An executor that runs tasks on this transport's loop thread, between its rounds of libcurl
    /// work: for async code that sends requests one after another.
    ///
    /// Awaiting a response normally crosses threads twice: the task's request goes to the loop
    /// thread, and the response comes back to a thread of the global executor. In a task that
    /// prefers this executor, the task's nonisolated code runs on the loop thread itself: the
    /// response resumes it there, and its next request is queued without waking the loop.
    ///
    /// ```swift
    /// let users = try await withTaskExecutorPreference(client.taskExecutor) {
    ///     var users: [User] = []
    ///     for id in ids { users.append(try await client.get("users/\(id)").validate().decode(User.self).value) }
    ///     return users
    /// }
    /// ```
    ///
    /// While the task runs, the transport moves no bytes for anyone: keep the code between awaits
    /// short and never block in it (no semaphore waits, sleeps or blocking I/O); give long work a
    /// task without the preference. Methods of default actors that such a task calls run on the
    /// loop thread too (a task executor preference applies to them); the main actor and actors with
    /// an executor of their own keep theirs.
    ///
    /// The executor keeps the loop running after the transport is gone, for as long as it exists.
    /// A task made with `Task(executorPreference:)` owns its executor when compiled with Swift 6.1
    /// or later; with Swift 6.0 it does not, so keep the transport (or the client) until such a
    /// task has ended.
    public var taskExecutor: (any TaskExecutor)? { executor }

    /// The events of one transfer of `request`; starting sends it, disposing cancels it.
    public func transfer(_ request: PreparedRequest) -> SignalProducer<TransferEvent, SluiceError> {
        transfer(request, control: nil)
    }

    /// Like `transfer(_:)`, with a control to suspend and resume the transfer.
    public func transfer(_ request: PreparedRequest, control: TransferControl?) -> SignalProducer<
        TransferEvent, SluiceError
    > {
        let queue = self.queue
        return SignalProducer { observer, lifetime in
            let id = queue.makeID()
            let token = TransferContext(id: id, request: request, sink: .events(observer), queue: queue)
            queue.send(.start(TransferStart(context: token)))
            if let control {
                control.bind(queue: queue, id: id)
                lifetime.observeEnded { control.unbind(id: id) }
            }
            // Ending the lifetime cancels a transfer the loop has not finished.
            lifetime += token
        }
    }

    /// Performs `request` and collects its response, body included.
    ///
    /// The same as `Transport`'s default, done in one step: the transfer collects the body itself
    /// and sends the response as one value, instead of sending the head, every chunk and every
    /// progress event to be put together downstream. Only `monitor`, when given, hears of the head
    /// and the progress.
    public func response(for request: PreparedRequest, control: TransferControl?, monitor: TransferMonitor?)
        -> SignalProducer<Response, SluiceError>
    {
        // The transfer's context is made with the producer and is all its closure captures (see
        // `TransferContext.forThisStart()`).
        let first = TransferContext(
            id: queue.makeID(), request: request, sink: .response(monitor), queue: queue, control: control)
        return SignalProducer.serial { downstream, lifetime in
            // The loop thread sends, a disposal interrupts from another: the token lets only the
            // first of them end the stream (see `TransferToken`).
            let context = first.forThisStart()
            context.subscribe(downstream)
            let queue = context.queue
            queue.send(.start(TransferStart(context: context)))
            if let control = context.control {
                let id = context.id
                control.bind(queue: queue, id: id)
                lifetime.observeEnded { control.unbind(id: id) }
            }
            lifetime += context
        }
    }
}

/// The transport's loop thread (a `DetachedThread`).
private final class LoopThread: Sendable {
    /// The transport's commands, which the loop serves.
    private let queue: CommandQueue
    /// The limits the loop's multi handle is made with.
    private let configuration: CurlTransport.Configuration

    private init(queue: CommandQueue, configuration: CurlTransport.Configuration) {
        self.queue = queue
        self.configuration = configuration
    }

    /// Starts a thread that runs the loop of `queue` until the transport shuts down; nobody joins
    /// it: it ends by itself once the transport is gone.
    static func start(queue: CommandQueue, configuration: CurlTransport.Configuration) {
        let thread = LoopThread(queue: queue, configuration: configuration)
        DetachedThread.start(name: "sluice.curlloop") { thread.run() }
    }

    /// The thread's body: runs the loop, or refuses every transfer when libcurl cannot make one.
    private func run() {
        do throws(SluiceError) {
            let loop = try CurlLoop(queue: queue, configuration: configuration)
            loop.run()
        } catch {
            // No multi handle (libcurl out of memory): every transfer fails with the reason.
            CurlLoop.refuseAll(queue: queue, error: error)
        }
    }
}
