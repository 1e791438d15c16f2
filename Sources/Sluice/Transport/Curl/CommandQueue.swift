internal import CCurl
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What other threads ask the loop thread to do.
enum LoopCommand: Sendable {
    case start(TransferStart)
    case cancel(UInt64)
    case pause(UInt64)
    case resume(UInt64)
    /// An async body has bytes (or its end) for a transfer whose sending side paused for them.
    case bodyReady(UInt64)
    /// A job of a task that prefers the transport's executor, run on the loop thread; the command
    /// holds the executor until then.
    case run(UnownedJob, LoopExecutor)
    case shutdown
}

/// Everything the loop needs to start one transfer; made on the caller's thread.
struct TransferStart: Sendable {
    /// The transfer's state, made with it and handed to the loop (it is the transfer's token too).
    let context: TransferContext

    var id: UInt64 { context.id }
    var sink: TransferSink { context.sink }
    var token: TransferToken { context }
}

/// Where the outcome of a transfer goes.
enum TransferSink: Sendable {
    /// Every step of the transfer, for `transfer(_:)`.
    case events(Observer<TransferEvent, SluiceError>)
    /// Only the response, body included, for `response(for:control:monitor:)`: the transfer
    /// collects the body itself and the transfer's token delivers it as one value, instead of
    /// events that are put together downstream. The monitor, if any, is told of the head and the
    /// progress.
    case response(TransferMonitor?)

    /// Ends the stream of the transfer whose token is `token` with `error`.
    func fail(_ error: SluiceError, token: TransferToken) {
        switch self {
        case .events(let observer): observer.send(error: error)
        case .response: token.deliver(.failure(error))
        }
    }
}

/// Hands commands to the loop thread and wakes it when it sleeps.
///
/// The loop sleeps in `curl_multi_poll`, which also watches this queue's eventfd; writing to the
/// eventfd wakes it. Only a command sent while the loop sleeps writes to it: a command sent while
/// the loop runs (from inside an observer on the loop thread, as `concat` does, or from a task that
/// the loop has just resumed and that starts its next request before the loop got to sleep) is
/// taken before the loop sleeps again, and the write, the read that clears it and the extra round
/// of `poll` it causes are saved.
final class CommandQueue: Sendable {
    private struct State {
        var commands: [LoopCommand] = []
        /// Between `prepareToSleep()` and `didWake()`: the loop is in, or about to enter, `poll`.
        var isLoopAsleep = false
        /// The eventfd was written since the loop went to sleep: one write is enough.
        var isWakeupWritten = false
    }

    private let state = Lock(State())
    private let nextID = Atomic<UInt64>(1)
    /// An eventfd the loop polls; a write makes it readable.
    let wakeDescriptor: Int32

    init() {
        wakeDescriptor = sluice_eventfd()
        precondition(wakeDescriptor >= 0, "eventfd failed: \(String(cString: strerror(errno)))")
    }

    func makeID() -> UInt64 { nextID.wrappingAdd(1, ordering: .relaxed).oldValue }

    func send(_ command: consuming LoopCommand) {
        // Moved into the queue, not copied (a copy retains every reference the command holds).
        var command = Optional(command)
        let mustWake = state.withLock { s -> Bool in
            s.commands.append(command.take()!)
            guard s.isLoopAsleep, !s.isWakeupWritten else { return false }
            s.isWakeupWritten = true
            return true
        }
        if mustWake {
            var one: UInt64 = 1
            _ = write(wakeDescriptor, &one, 8)
        }
    }

    /// Marks the loop as going to sleep (loop thread only), unless commands are waiting: then it
    /// returns false and the loop must take them first. From a true return until `didWake()`, a
    /// command sent writes to the eventfd, so the loop's `poll` returns.
    func prepareToSleep() -> Bool {
        state.withLock { s in
            guard s.commands.isEmpty else { return false }
            s.isLoopAsleep = true
            s.isWakeupWritten = false
            return true
        }
    }

    /// Marks the loop as running again (loop thread only), after its `poll` returned.
    func didWake() {
        state.withLock { $0.isLoopAsleep = false }
    }

    /// The loop's sleep (loop thread only): unless commands are waiting, marks the loop asleep,
    /// runs `wait` (a `poll` that watches `wakeDescriptor` and returns whether it found it readable,
    /// or true if it cannot tell), marks the loop awake and clears the eventfd if it was readable.
    /// Every loop sleeps through here, so none can forget a step.
    func sleep(_ wait: () -> Bool) {
        guard prepareToSleep() else { return }
        let woken = wait()
        didWake()
        if woken { drainWakeups() }
    }

    /// Takes every queued command (loop thread only) into `batch`, which must be empty, by swapping
    /// it with the queue's array: the two arrays trade places and keep their capacity, so taking
    /// and emptying a batch allocates nothing (returning a copy left the queue's buffer shared, and
    /// emptying it then allocated a new one for every batch).
    func takeAll(into batch: inout [LoopCommand]) {
        state.withLock { swap(&$0.commands, &batch) }
    }

    /// Clears the eventfd after a `poll` that found it readable (loop thread only). A write that
    /// lands after this (its sender saw the loop asleep just before it woke) only makes the next
    /// `poll` return at once, and that one clears it.
    func drainWakeups() {
        var value: UInt64 = 0
        _ = read(wakeDescriptor, &value, 8)
    }

    deinit { close(wakeDescriptor) }
}
