internal import CNetlink
import Foundation

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
        public var maximumConnections = 256
        /// The most connections to one host at once (0 for no limit).
        public var maximumConnectionsPerHost = 64
        /// How many idle connections are kept for reuse (libcurl's CURLMOPT_MAXCONNECTS).
        public var connectionCacheSize = 128

        /// The default limits.
        public init() {}
    }

    /// The configuration this transport was made with.
    public let configuration: Configuration
    private let queue = CommandQueue()

    /// A transport shared by clients that do not bring their own.
    public static let shared = CurlTransport()

    /// Creates a transport and starts its loop thread.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        LoopThread.start(queue: queue, configuration: configuration)
    }

    deinit {
        queue.send(.shutdown)
    }

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
            let token = TransferToken(id: id, queue: queue)
            queue.send(.start(TransferStart(id: id, request: request, sink: .events(observer), token: token)))
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
    /// progress event to be put together downstream.
    public func response(for request: PreparedRequest) -> SignalProducer<Response, SluiceError> {
        let queue = self.queue
        return SignalProducer { observer, lifetime in
            let id = queue.makeID()
            let token = TransferToken(id: id, queue: queue)
            queue.send(.start(TransferStart(id: id, request: request, sink: .response(observer), token: token)))
            lifetime += token
        }
    }
}

/// The transport's loop thread: a plain POSIX thread rather than Foundation's `Thread`.
///
/// `Thread` brings in code and metadata the loop never uses (an `NSObject` subclass, its thread
/// dictionary, `Thread.current` bookkeeping), whose pages stay resident for the life of the
/// process: about 0.3 MiB in a process that otherwise does not use `Thread`.
private final class LoopThread: Sendable {
    /// The transport's commands, which the loop serves.
    private let queue: CommandQueue
    /// The limits the loop's multi handle is made with.
    private let configuration: CurlTransport.Configuration

    /// What the thread needs, handed to it through `pthread_create`'s argument.
    private init(queue: CommandQueue, configuration: CurlTransport.Configuration) {
        self.queue = queue
        self.configuration = configuration
    }

    /// Starts a detached thread that runs the loop of `queue` until the transport shuts down.
    static func start(queue: CommandQueue, configuration: CurlTransport.Configuration) {
        // The thread owns this reference and releases it when it starts running.
        let context = Unmanaged.passRetained(LoopThread(queue: queue, configuration: configuration)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        // Nobody joins the thread: it ends by itself once the transport is gone.
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let body: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
            Unmanaged<LoopThread>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }
        let result = pthread_create(&thread, &attributes, body, context)
        precondition(result == 0, "Cannot start the transport's thread: \(String(cString: strerror(result)))")
    }

    /// The thread's body: runs the loop, or refuses every transfer when libcurl cannot make one.
    private func run() {
        // Shown by debuggers and `top -H`; Linux keeps at most 15 bytes of a thread name.
        _ = sluice_name_current_thread("sluice.curlloop")
        do throws(SluiceError) {
            let loop = try CurlLoop(queue: queue, configuration: configuration)
            loop.run()
        } catch {
            // No multi handle (libcurl out of memory): every transfer fails with the reason.
            CurlLoop.refuseAll(queue: queue, error: error)
        }
    }
}
