import FoundationEssentials
import Synchronization

/// Where a client's lifecycle events go: one hot signal for all of the client's tasks, the
/// numbering of tasks, and whether anybody watches (so unwatched requests build no events).
final class TaskEventHub: Sendable {
    private let pipe = Signal<TaskEvent, Never>.countingPipe()
    private let nextID = Atomic<UInt64>(1)

    /// Every event of every task of the client.
    var events: Signal<TaskEvent, Never> { pipe.output }

    /// A new task identifier.
    func makeTaskID() -> TaskID {
        TaskID(rawValue: nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
    }

    /// A reporter for a task that starts now, or nil when nobody watches: neither the client's
    /// signal nor `taskOutput` (a task handle's own observers).
    func reporter(for request: Request, taskID: TaskID? = nil, taskOutput: Observer<TaskEvent, Never>? = nil)
        -> TaskReporter?
    {
        var outputs: [Observer<TaskEvent, Never>] = []
        if pipe.observers.isObserved { outputs.append(pipe.input) }
        if let taskOutput { outputs.append(taskOutput) }
        guard !outputs.isEmpty else { return nil }
        return TaskReporter(id: taskID ?? makeTaskID(), request: request, outputs: outputs)
    }
}

extension Client {
    /// The lifecycle events of every request this client sends, as a hot signal: observers see the
    /// events of requests that start while they observe (see `TaskEvent` for the order).
    ///
    /// While nobody observes, requests build no events at all; while somebody does, the transport
    /// also tells each request's run of its head and progress. The request's path is the same.
    public var events: Signal<TaskEvent, Never> { eventHub.events }
}
