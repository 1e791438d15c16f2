import Synchronization

/// The serial gate in front of one observer: at the source of every started producer
/// (`Operators.serialized`), and in the operators whose input comes from several threads.
///
/// It delivers the way `SignalCore` does (see there): a sender that finds the delivery token free
/// delivers at once, one that finds it taken queues its event for the holder, nothing blocks and
/// nothing recurses; after the terminal event nothing more is delivered, and an interruption drops
/// the values not yet delivered. Unlike a `SignalCore`, it has one observer for its whole life,
/// held in a constant: an event reaches it with no retain and release, and a start makes one
/// object where a core and the box of its first observer were two. The observer is released with
/// the gate, when the work lets go of the gate's observer and the subscription has ended: as a
/// handler written with `SignalProducer.serial` holds its observer.
@usableFromInline
final class SerialGate<Value: Sendable, Failure: Error>: Disposable {
    @usableFromInline let downstream: Observer<Value, Failure>
    /// Set by the token's holder once it delivered the terminal event (token holder only).
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var deliveryEnded = false
    /// The delivery token and the queue of events for its holder (`nonisolated(unsafe)`: see
    /// `SignalCore.token`).
    @usableFromInline nonisolated(unsafe) let token = DeliveryToken<Event<Value, Failure>>()
    /// Set by `interrupt()`: values not yet delivered are dropped.
    @usableFromInline let isInterrupting: Atomic<Bool>
    /// Set once the terminal event has been delivered (readable from any thread).
    @usableFromInline let terminated: Atomic<Bool>

    @inlinable
    init(_ downstream: consuming Observer<Value, Failure>) {
        self.downstream = downstream
        isInterrupting = Atomic(false)
        terminated = Atomic(false)
    }

    /// Sends an event, serially; see the type's documentation.
    @inlinable
    func send(_ event: Event<Value, Failure>) {
        token.run(
            now: { deliver(event) }, queue: { token.pending.withLock { $0.append(event) } },
            drain: { drain(missed: $0) })
    }

    /// The token holder's loop (see `DeliveryToken.drain(missed:process:afterQueue:)`).
    @inlinable
    func drain(missed: Int) {
        token.drain(
            missed: missed, process: { deliver($0) },
            afterQueue: { if !deliveryEnded && isInterrupting.load(ordering: .relaxed) { deliver(.interrupted) } })
    }

    /// Delivers one event (token holder only).
    @inlinable
    func deliver(_ event: Event<Value, Failure>) {
        if deliveryEnded { return }
        if event.isTerminating {
            deliveryEnded = true
            terminated.store(true, ordering: .releasing)
            downstream.send(event)
            return
        }
        if isInterrupting.load(ordering: .relaxed) { return }
        downstream.send(event)
    }

    /// Interrupts: values not yet delivered are dropped and the observer gets `interrupted`
    /// (see `SignalCore.interrupt()`).
    @inlinable
    func interrupt() {
        if terminated.load(ordering: .acquiring) { return }
        isInterrupting.store(true, ordering: .relaxed)
        token.run(now: { deliver(.interrupted) }, queue: {}, drain: { drain(missed: $0) })
    }

    /// Disposing interrupts, as the end of the subscription's lifetime does.
    @inlinable
    func dispose() { interrupt() }

    /// Whether the gate has delivered its terminal event.
    @inlinable
    var isDisposed: Bool { terminated.load(ordering: .acquiring) }
}
