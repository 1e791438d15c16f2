import FoundationEssentials
import Synchronization

/// Sends one task's lifecycle events to whoever watches: the client's `events` signal (when it had
/// observers as the task started) and the task's own handle. Made only when somebody watches, so
/// an unobserved request builds no events at all.
///
/// The task completes once: with the serializer's value or error when a serializer claimed the
/// response, or with the response itself when none did, or with the transfer's error.
final class TaskReporter: Sendable {
    private struct State {
        var claimed = false
        var finished = false
    }

    let id: TaskID
    let request: Request
    private let outputs: [Observer<TaskEvent, Never>]
    private let state = Mutex(State())

    init(id: TaskID, request: Request, outputs: [Observer<TaskEvent, Never>]) {
        self.id = id
        self.request = request
        self.outputs = outputs
    }

    /// Sends `kind` to every watcher, unless the task has already ended (a late progress or retry
    /// event never follows `completed` or `cancelled`).
    func report(_ kind: TaskEvent.Kind) {
        guard !state.withLock({ $0.finished }) else { return }
        send(kind)
    }

    private func send(_ kind: TaskEvent.Kind) {
        let event = TaskEvent(taskID: id, request: request, kind: kind)
        for output in outputs { output.send(value: event) }
    }

    /// A serializer will complete the task with its value or error.
    func claimCompletion() {
        state.withLock { $0.claimed = true }
    }

    /// Completes the task with `response`, unless a serializer claimed it.
    func responseDelivered(_ response: Response) {
        let unclaimed = state.withLock { s in !s.claimed }
        if unclaimed { complete(TaskCompletion(response: response, error: nil)) }
    }

    /// Completes the task, once.
    func complete(_ completion: TaskCompletion) {
        guard finish() else { return }
        send(.completed(completion))
    }

    /// Reports a cancellation, unless the task already completed.
    func cancelled() {
        guard finish() else { return }
        send(.cancelled)
    }

    private func finish() -> Bool {
        state.withLock { s in
            defer { s.finished = true }
            return !s.finished
        }
    }
}

extension TaskReporter: ResponseOutcomeObserver {
    func claimOutcome() { claimCompletion() }

    func settle(_ response: Response, value: (any Sendable)?, error: SluiceError?) {
        complete(TaskCompletion(response: response, error: error, serializedValue: value))
    }

    func abandon() { cancelled() }
}
