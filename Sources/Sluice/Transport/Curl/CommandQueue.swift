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
    case shutdown
}

/// Everything the loop needs to start one transfer; made on the caller's thread.
struct TransferStart: Sendable {
    let id: UInt64
    let request: PreparedRequest
    let sink: TransferSink
    let token: TransferToken
}

/// Where the outcome of a transfer goes.
enum TransferSink: Sendable {
    /// Every step of the transfer, for `transfer(_:)`.
    case events(Observer<TransferEvent, SluiceError>)
    /// Only the response, body included, for `response(for:)`: the transfer collects the body
    /// itself and sends one value, instead of events that are put together downstream.
    case response(Observer<Response, SluiceError>)

    func send(error: SluiceError) {
        switch self {
        case .events(let observer): observer.send(error: error)
        case .response(let observer): observer.send(error: error)
        }
    }
}

/// Hands commands to the loop thread and wakes it.
///
/// The loop sleeps in `curl_multi_poll`, which also watches this queue's eventfd; writing to the
/// eventfd wakes it. A command sent from the loop thread itself (a request started from inside an
/// observer, as `concat` does) needs no wake-up: the loop drains the queue before it polls again.
final class CommandQueue: Sendable {
    private struct State {
        var commands: [LoopCommand] = []
        var wakeupPending = false
    }

    private let state = Lock(State())
    private let nextID = Atomic<UInt64>(1)
    private let loopThread = Atomic<UInt>(0)
    /// An eventfd the loop polls; a write makes it readable.
    let wakeDescriptor: Int32

    init() {
        wakeDescriptor = sluice_eventfd()
        precondition(wakeDescriptor >= 0, "eventfd failed: \(String(cString: strerror(errno)))")
    }

    func makeID() -> UInt64 { nextID.wrappingAdd(1, ordering: .relaxed).oldValue }

    func markLoopThread() { loopThread.store(UInt(pthread_self()), ordering: .releasing) }

    func send(_ command: LoopCommand) {
        let mustWake = state.withLock { s -> Bool in
            s.commands.append(command)
            guard !s.wakeupPending else { return false }
            s.wakeupPending = true
            return true
        }
        if mustWake && UInt(pthread_self()) != loopThread.load(ordering: .acquiring) {
            var one: UInt64 = 1
            _ = write(wakeDescriptor, &one, 8)
        }
    }

    /// Takes every queued command (loop thread only) into `batch`, which must be empty, by swapping
    /// it with the queue's array: the two arrays trade places and keep their capacity, so taking
    /// and emptying a batch allocates nothing (returning a copy left the queue's buffer shared, and
    /// emptying it then allocated a new one for every batch).
    func takeAll(into batch: inout [LoopCommand]) {
        state.withLock { s in
            s.wakeupPending = false
            swap(&s.commands, &batch)
        }
    }

    var hasCommands: Bool { state.withLock { !$0.commands.isEmpty } }

    /// Clears the eventfd after a wake-up (loop thread only).
    func drainWakeups() {
        var value: UInt64 = 0
        _ = read(wakeDescriptor, &value, 8)
    }

    deinit { close(wakeDescriptor) }
}
