internal import CCurl
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The transport's event loop: owns the multi handle, every easy handle and every transfer
/// context, and is the only code that calls libcurl. Runs on one dedicated thread; not Sendable.
final class CurlLoop {
    private let queue: CommandQueue
    private let configuration: CurlTransport.Configuration
    let multi: MultiHandle
    // Only the loop thread touches these, with accesses that cannot overlap: no run-time
    // exclusivity checks (see `TransferContext`).
    @exclusivity(unchecked) var transfers = IDTable<TransferContext>()
    @exclusivity(unchecked) private var idleHandles: [EasyHandle] = []
    @exclusivity(unchecked) var lastIdleCheck = ContinuousClock.now
    /// The coarse clock's time (see `coarseMilliseconds()`) before which no idle check is due.
    @exclusivity(unchecked) var nextIdleCheck: Int64 = 0
    @exclusivity(unchecked) private var isShuttingDown = false
    @exclusivity(unchecked) private var remoteAddresses = RemoteAddressCache()
    /// The commands being handled; empty between batches (see `CommandQueue.takeAll(into:)`).
    @exclusivity(unchecked) private var batch: [LoopCommand] = []
    #if DEBUG
        /// Set while `handleCommands` runs: jobs run inside it, and must never reach it again
        /// (the batch is borrowed in place meanwhile).
        @exclusivity(unchecked) private var isHandlingCommands = false
    #endif

    /// How often transfers are checked for the idle timeout.
    static let idleCheckInterval: Duration = .milliseconds(100)
    /// The coarse clock's gate between two idle checks: a little less than `idleCheckInterval`, so
    /// that the coarse clock's steps never hold a due check back (the exact clock decides).
    static let coarseCheckInterval: Int64 = 90
    /// How many finished easy handles are kept for reuse.
    private static let handlePoolSize = 64

    init(queue: CommandQueue, configuration: CurlTransport.Configuration) throws(SluiceError) {
        self.queue = queue
        self.configuration = configuration
        multi = try MultiHandle(
            maximumConnections: configuration.maximumConnections,
            maximumConnectionsPerHost: configuration.maximumConnectionsPerHost,
            connectionCacheSize: configuration.connectionCacheSize)
    }

    /// Runs until a shutdown command arrives, then frees everything in libcurl's documented order.
    func run() {
        while !isShuttingDown {
            handleCommands()
            do {
                try multi.perform()
            } catch {
                failAll(error)
            }
            multi.forEachFinishedTransfer { handle, result in finish(handle, result) }
            checkIdleTimeouts()
            if isShuttingDown { continue }
            let timeout: Int32 = transfers.isEmpty ? 1000 : 100
            // The eventfd is drained only when poll saw it readable (or failed): most wake-ups are
            // a socket's, and a read that finds nothing would be one wasted system call per request.
            queue.sleep { (try? multi.poll(wakeFD: queue.wakeDescriptor, timeoutMilliseconds: timeout)) ?? true }
        }
        // Every command sent until the end is handled: a job run now may send more, and so may a
        // task that a failed transfer resumes.
        drainAfterShutdown()
        failAll(SluiceError(.cancelled, "The transport was shut down."))
        drainAfterShutdown()
        idleHandles.removeAll()
    }

    /// Handles the commands left once the loop stopped, until none is left: a transfer not begun
    /// fails as cancelled, a job runs, the rest has nothing left to act on.
    private func drainAfterShutdown() {
        while true {
            queue.takeAll(into: &batch)
            if batch.isEmpty { return }
            for command in batch {
                switch command {
                case .start(let start):
                    start.sink.fail(SluiceError(.cancelled, "The transport was shut down."), token: start.token)
                case .run(let job, let executor):
                    job.runSynchronously(on: executor.asUnownedTaskExecutor())
                case .cancel, .pause, .resume, .bodyReady, .shutdown:
                    break
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Serves a transport whose multi handle could not be made: fails every transfer with `error`
    /// until the transport shuts down.
    static func refuseAll(queue: CommandQueue, error: SluiceError) {
        var batch: [LoopCommand] = []
        var isShutDown = false
        while true {
            queue.takeAll(into: &batch)
            // After the shutdown, the commands sent before it or by its jobs are still handled.
            if isShutDown && batch.isEmpty { return }
            for command in batch {
                switch command {
                case .start(let start):
                    start.token.markFinished()
                    start.sink.fail(error, token: start.token)
                case .run(let job, let executor):
                    job.runSynchronously(on: executor.asUnownedTaskExecutor())
                case .shutdown:
                    isShutDown = true
                case .cancel, .pause, .resume, .bodyReady:
                    break
                }
            }
            batch.removeAll(keepingCapacity: true)
            if isShutDown { continue }
            queue.sleep {
                var descriptor = pollfd(fd: queue.wakeDescriptor, events: Int16(POLLIN), revents: 0)
                return poll(&descriptor, 1, 1000) != 0
            }
        }
    }

    /// Handles the commands queued since the previous batch.
    private func handleCommands() {
        #if DEBUG
            assert(!isHandlingCommands, "the loop's commands are handled from its top level only")
            isHandlingCommands = true
            defer { isHandlingCommands = false }
        #endif
        queue.takeAll(into: &batch)
        if batch.isEmpty { return }
        // Each command is moved out of the batch and a command that holds no reference left in its
        // place: iterating the array copied every command (a retain of each reference it holds)
        // only for the batch to release them (a batch holds about 30 commands with 64 in flight).
        batch.withUnsafeMutableBufferPointer { commands in
            for index in commands.indices {
                let command = commands.moveElement(from: index)
                commands.initializeElement(at: index, to: .cancel(0))
                handle(command)
            }
        }
        batch.removeAll(keepingCapacity: true)
    }

    private func handle(_ command: LoopCommand) {
        switch command {
        case .start(let start): begin(start)
        case .cancel(let id):
            // The subscriber was disposed and has had its `interrupted`; just let go of the transfer.
            if let context = transfers[id] { release(context) }
        case .pause(let id):
            guard let context = transfers[id], !context.isPaused else { return }
            context.isPaused = true
            try? Curl.check(curl_easy_pause(context.easy.raw, SLUICE_PAUSE_ALL), "curl_easy_pause")
        case .resume(let id):
            guard let context = transfers[id], context.isPaused else { return }
            context.isPaused = false
            context.lastActivity = .now
            try? Curl.check(curl_easy_pause(context.easy.raw, SLUICE_PAUSE_CONT), "curl_easy_pause")
        case .bodyReady(let id):
            guard let context = transfers[id], context.awaitingBody else { return }
            context.awaitingBody = false
            // A transfer the user suspended stays so: resuming it continues the sending side too.
            if !context.isPaused {
                try? Curl.check(curl_easy_pause(context.easy.raw, SLUICE_PAUSE_CONT), "curl_easy_pause")
            }
        case .run(let job, let executor):
            // Between rounds of libcurl work, never inside a callback; the command holds the
            // executor until the job has run.
            job.runSynchronously(on: executor.asUnownedTaskExecutor())
        case .shutdown:
            isShuttingDown = true
        }
    }

    private func begin(_ start: TransferStart) {
        // Disposed before the loop got to it: its subscriber has had its `interrupted` already.
        if start.token.isFinishedOrDisposed { return }
        do throws(SluiceError) {
            let easy: EasyHandle
            if let pooled = idleHandles.popLast() {
                easy = pooled
            } else {
                easy = try EasyConfigurator.makeHandle(sockets: multi.sockets)
            }
            let context = start.context
            context.begin(on: easy, placeholder: lastIdleCheck)
            do throws(SluiceError) {
                try EasyConfigurator.configure(context, configuration: configuration)
                try multi.add(easy)
            } catch {
                context.closeOutput()
                context.easy = nil
                recycle(easy)
                throw error
            }
            transfers.insert(context, for: start.id)
        } catch {
            start.token.markFinished()
            start.sink.fail(error, token: start.token)
        }
    }

    private func finish(_ handle: UnsafeMutableRawPointer, _ result: CURLcode) {
        // The handle's private pointer leads to its context (see `EasyHandle.transfer`), which the
        // table keeps alive: only handles in the multi handle finish, and a context leaves the table
        // only after its handle left the multi handle.
        guard let pointer = EasyHandle.transfer(ofRaw: handle) else {
            // Every handle in the multi handle has a transfer; one without would stay there.
            assertionFailure("A finished easy handle has no transfer.")
            return
        }
        let context = TransferContext.from(pointer)
        if result == CURLE_OK && context.abortReason == nil && context.endedWithoutCloseNotify {
            context.abortReason = .closedWithoutNotify
        }
        if result == CURLE_OK && context.abortReason == nil {
            context.sendHeadIfNeeded()
            // Read before the handle goes, and handed over whole: through a `Result` the metrics
            // were copied once more, and the copy destroyed (~250 instructions).
            let metrics = context.metrics(addresses: &remoteAddresses)
            settle(context)
            context.succeed(metrics)
        } else {
            // libcurl 7.88 keeps its receive buffer after a transfer that failed resolving a name,
            // and then refuses CURLOPT_BUFFERSIZE, which every transfer sets: the next request on
            // the handle would fail with `invalidOption`. Such a handle is let go.
            context.isHandleSpent = result == CURLE_COULDNT_RESOLVE_HOST || result == CURLE_COULDNT_RESOLVE_PROXY
            // libcurl reconnects by itself when a reused connection dies under a request; if that
            // fails, a non-idempotent request that may have reached the server must not read as one
            // that never left (an offline retry would send it again).
            if context.abortReason == nil, context.wasSent, !context.request.method.isIdempotent,
                result == CURLE_COULDNT_CONNECT || result == CURLE_COULDNT_RESOLVE_HOST
                    || result == CURLE_COULDNT_RESOLVE_PROXY
            {
                context.abortReason = .notSentAgain
            }
            if context.abortReason == nil, !context.hasResponseHead, let reason = Self.headFailure(result),
                context.easy.info(CURLINFO_REQUEST_SIZE) > 0
            {
                context.abortReason = reason
            }
            let options = context.request.options
            let routeError =
                context.abortReason == nil && (options.proxy != nil || options.unixSocketPath != nil)
                ? SluiceError(
                    routeFailure: result, message: context.easy.errorMessage, options: options,
                    connectCode: context.easy.info(CURLINFO_HTTP_CONNECTCODE), url: context.urlText)
                : nil
            fail(
                context,
                routeError
                    ?? SluiceError(
                        transferResult: result, message: context.easy.errorMessage, abort: context.abortReason,
                        totalTimeoutExpired: result == CURLE_OPERATION_TIMEDOUT && context.totalTimeoutExpired,
                        url: context.urlText))
        }
    }

    /// What two of libcurl's generic codes mean when they end a transfer whose request went out and
    /// whose response head is not complete: libcurl refused a line of the head.
    private static func headFailure(_ result: CURLcode) -> AbortReason? {
        switch result {
        case CURLE_OUT_OF_MEMORY:
            // A header line longer than CURL_MAX_HTTP_HEADER is refused as if memory ran out ("Out
            // of memory", or "Avoided giant realloc for header" in older versions).
            return .headerLineTooLong(limit: Int(SLUICE_MAX_HTTP_HEADER))
        case CURLE_BAD_FUNCTION_ARGUMENT:
            // libcurl's store of header fields (`curl_easy_header`) refuses, in some versions, a
            // line it cannot make a field of: one that starts with whitespace and continues nothing.
            return .invalidHead(
                "libcurl refused one of its header lines, such as one that starts with whitespace before any header field"
            )
        default:
            return nil
        }
    }

    /// Ends a transfer with `error`: releases it, then tells the subscriber (so a request started
    /// from the observer finds a free handle and a clean table).
    func fail(_ context: TransferContext, _ error: SluiceError) {
        settle(context)
        context.sink.fail(error, token: context)
    }

    /// Ends a transfer's time in libcurl, before its outcome is sent: a request started from the
    /// subscriber's observer finds a free handle and a clean table.
    private func settle(_ context: TransferContext) {
        release(context)
        // libcurl has stored the cookies by now: the jar's observers hear of them before the
        // response arrives.
        if context.receivedCookies { context.cookieJar?.noteReceived(from: context.request.url) }
    }

    /// Removes a transfer from libcurl and from the tables, in libcurl's order, and keeps its handle.
    private func release(_ context: TransferContext) {
        context.markFinished()
        multi.remove(context.easy)
        context.easy.transfer = nil
        context.closeOutput()
        transfers.remove(context.id)
        context.bodyReader = nil
        // A pause is no option the next transfer sets again (see `EasyHandle`): a handle that ended
        // suspended could carry it into the next transfer, so it is let go instead.
        if !context.isPaused && !context.isHandleSpent { recycle(context.easy) }
        // The handle is the loop's: the context, which its subscriber may hold a while longer,
        // lets go of it here, so that a handle let go is cleaned up on the loop thread.
        context.easy = nil
    }

    private func recycle(_ easy: EasyHandle) {
        // (A handle whose transfer could not be added comes here with the transfer still set.)
        easy.transfer = nil
        guard idleHandles.count < Self.handlePoolSize else { return }
        // An idle handle keeps no copy of the last body (it may be a login form's).
        easy.dropInlineBody()
        easy.reuse()
        idleHandles.append(easy)
    }

    private func failAll(_ error: SluiceError) {
        for context in transfers.values { fail(context, error) }
    }
}
