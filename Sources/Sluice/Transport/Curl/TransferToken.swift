import Synchronization

/// Shared between a started transfer's producer and the loop, and the producer's way to cancel:
/// its lifetime disposes the token, which sends a cancel command unless the loop already finished
/// the transfer (then no command and no wake-up are needed). One object serves as both the flag and
/// the disposable, where a flag and a closure capturing it were two allocations per request.
///
/// For a collected response (`CurlTransport.response(for:)`) the token is also the gate between
/// the loop and a disposal: whichever comes first ends the subscriber's stream, the loop with the
/// response or its failure, a disposal with `interrupted`, and the other sends nothing. One atomic
/// operation on the token's flags decides which; only the winner sends, so the subscriber's events
/// stay serial; a general gate (a signal core and an observer, two allocations per request) is kept
/// for the event stream of `transfer(_:)`, where the loop sends many events.
///
/// Not final: a started transfer's token is its `TransferContext`, made on the caller's thread,
/// so that one object per request serves the producer and the loop.
class TransferToken: Disposable, @unchecked Sendable {
    // `@unchecked Sendable` because the class is not final: its own state is `let`s of `Sendable`
    // values and atomic flags; see `TransferContext` for what its subclass adds.
    /// The token's flags, changed together by one atomic operation each (no lock: a contended
    /// `Mutex` is invisible to the thread sanitizer, and `Lock` would cost an allocation).
    private enum Flag {
        /// The loop has finished the transfer.
        static let finished: UInt8 = 1
        /// The producer's lifetime has ended.
        static let disposed: UInt8 = 2
        /// The subscriber of a collected response has been given its terminal event, or is being
        /// given it (by the loop or by a disposal).
        static let ended: UInt8 = 4
    }

    let id: UInt64
    let queue: CommandQueue
    /// The subscriber of a collected response, which the token ends; nil for an event stream.
    /// Given at the latest by the start that takes the token (`subscribe(_:)`), before the start
    /// command and the lifetime publish the token to the loop and to a disposal.
    nonisolated(unsafe) private var subscriber: Observer<Response, SluiceError>?
    private let flags = Atomic<UInt8>(0)

    /// A token for transfer `id`, whose cancel command goes to `queue`; `subscriber` is the
    /// observer of a collected response, which the token delivers to (see the type's comment).
    init(id: UInt64, queue: CommandQueue, subscriber: Observer<Response, SluiceError>? = nil) {
        self.id = id
        self.queue = queue
        self.subscriber = subscriber
    }

    /// Sets the subscriber of a collected response, for a token made before its start.
    final func subscribe(_ subscriber: Observer<Response, SluiceError>) {
        self.subscriber = subscriber
    }

    /// Whether the producer's lifetime has ended (the subscriber disposed or got its terminal event).
    final var isDisposed: Bool { flags.load(ordering: .acquiring) & Flag.disposed != 0 }

    /// Whether the transfer is over or no longer wanted: either way the loop must not begin it.
    final var isFinishedOrDisposed: Bool { flags.load(ordering: .acquiring) & (Flag.finished | Flag.disposed) != 0 }

    /// Called by the loop when the transfer is over.
    final func markFinished() { flags.bitwiseOr(Flag.finished, ordering: .acquiringAndReleasing) }

    /// Ends a collected response's stream with `outcome` (the response, then `completed`; or the
    /// failure), unless a disposal ended it first.
    final func deliver(_ outcome: Result<Response, SluiceError>) {
        let before = flags.bitwiseOr(Flag.ended, ordering: .acquiringAndReleasing).oldValue
        guard before & Flag.ended == 0, let subscriber = takeSubscriber() else { return }
        switch outcome {
        case .success(let response):
            subscriber.send(value: response)
            subscriber.sendCompleted()
        case .failure(let error):
            subscriber.send(error: error)
        }
    }

    /// Ends the producer's side: interrupts a collected response's subscriber that has had nothing
    /// yet, and cancels the transfer if the loop has not finished it.
    final func dispose() {
        let before = flags.bitwiseOr(Flag.disposed | Flag.ended, ordering: .acquiringAndReleasing).oldValue
        guard before & Flag.disposed == 0 else { return }
        if before & Flag.ended == 0 { takeSubscriber()?.sendInterrupted() }
        if before & Flag.finished == 0 { queue.send(.cancel(id)) }
    }

    /// The subscriber, let go of: for whichever of the loop and a disposal set `ended` first, the
    /// only one to touch it after the start. A finished stream keeps no observer (the producer,
    /// which may hold a context made with it, would otherwise keep the chain alive through it).
    private final func takeSubscriber() -> Observer<Response, SluiceError>? {
        defer { subscriber = nil }
        return subscriber
    }
}
