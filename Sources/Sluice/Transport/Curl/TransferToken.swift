import Synchronization

/// Shared between a started transfer's producer and the loop, and the producer's way to cancel:
/// its lifetime disposes the token, which sends a cancel command unless the loop already finished
/// the transfer (then no command and no wake-up are needed). One object serves as both the flag and
/// the disposable, where a flag and a closure capturing it were two allocations per request.
final class TransferToken: Disposable {
    let id: UInt64
    private let queue: CommandQueue
    private let state = Mutex((finished: false, disposed: false))

    /// A token for transfer `id`, whose cancel command goes to `queue`.
    init(id: UInt64, queue: CommandQueue) {
        self.id = id
        self.queue = queue
    }

    /// Whether the loop has finished the transfer.
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Whether the producer's lifetime has ended (the subscriber disposed or got its terminal event).
    var isDisposed: Bool { state.withLock { $0.disposed } }

    /// Whether the transfer is over or no longer wanted: either way the loop must not begin it.
    var isFinishedOrDisposed: Bool { state.withLock { $0.finished || $0.disposed } }

    /// Called by the loop when the transfer is over.
    func markFinished() { state.withLock { $0.finished = true } }

    /// Ends the producer's side: cancels the transfer if the loop has not finished it.
    func dispose() {
        let mustCancel = state.withLock { s -> Bool in
            guard !s.disposed else { return false }
            s.disposed = true
            return !s.finished
        }
        if mustCancel { queue.send(.cancel(id)) }
    }
}
