import Synchronization

/// Suspends and resumes a running transfer (libcurl's `curl_easy_pause`).
///
/// A suspended transfer moves no bytes, and its idle timeout does not run. Suspending before the
/// transfer starts makes it start suspended. One control follows one transfer at a time.
public final class TransferControl: Sendable {
    private struct State {
        var queue: CommandQueue?
        var id: UInt64?
        var isSuspended = false
    }

    private let state = Lock(State())

    /// Creates a control; pass it to `CurlTransport.transfer(_:control:)`.
    public init() {}

    /// Whether the transfer is suspended.
    public var isSuspended: Bool { state.withLock { $0.isSuspended } }

    /// Stops moving bytes until `resume()`.
    public func suspend() { set(suspended: true) }

    /// Moves bytes again after `suspend()`.
    public func resume() { set(suspended: false) }

    // Commands are sent while the lock is held, so the loop receives them in the order the state
    // changed: sent after unlocking, a `resume()` racing with `bind` could overtake the pause that
    // `bind` sends for a control suspended earlier, and the transfer would stay paused for good
    // while `isSuspended` said false. Holding this lock while the queue takes its own is safe:
    // nothing takes them in the other order.
    private func set(suspended: Bool) {
        state.withLock { s in
            guard s.isSuspended != suspended else { return }
            s.isSuspended = suspended
            guard let queue = s.queue, let id = s.id else { return }
            queue.send(suspended ? .pause(id) : .resume(id))
        }
    }

    func bind(queue: CommandQueue, id: UInt64) {
        state.withLock { s in
            s.queue = queue
            s.id = id
            if s.isSuspended { queue.send(.pause(id)) }
        }
    }

    func unbind(id: UInt64) {
        state.withLock { s in
            guard s.id == id else { return }
            s.queue = nil
            s.id = nil
        }
    }
}
