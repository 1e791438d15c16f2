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

    private func set(suspended: Bool) {
        let target = state.withLock { s -> (CommandQueue, UInt64)? in
            guard s.isSuspended != suspended else { return nil }
            s.isSuspended = suspended
            guard let queue = s.queue, let id = s.id else { return nil }
            return (queue, id)
        }
        if let (queue, id) = target { queue.send(suspended ? .pause(id) : .resume(id)) }
    }

    func bind(queue: CommandQueue, id: UInt64) {
        let suspended = state.withLock { s -> Bool in
            s.queue = queue
            s.id = id
            return s.isSuspended
        }
        if suspended { queue.send(.pause(id)) }
    }

    func unbind(id: UInt64) {
        state.withLock { s in
            guard s.id == id else { return }
            s.queue = nil
            s.id = nil
        }
    }
}
