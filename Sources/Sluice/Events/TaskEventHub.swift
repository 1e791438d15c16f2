import Foundation
import Synchronization

/// Where a client's lifecycle events go: one hot signal for all of the client's tasks, and the
/// numbering of tasks.
final class TaskEventHub: Sendable {
    private let pipe = Signal<TaskEvent, Never>.pipe()
    private let nextID = Atomic<UInt64>(1)

    /// Every event of every task of the client.
    var events: Signal<TaskEvent, Never> { pipe.output }

    /// A new task identifier.
    func makeTaskID() -> TaskID {
        TaskID(rawValue: nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
    }

    /// A reporter for one task that sends its events to the client's signal.
    func reporter(for id: TaskID, request: Request) -> @Sendable (TaskEvent.Kind) -> Void {
        let input = pipe.input
        return { kind in input.send(value: TaskEvent(taskID: id, request: request, kind: kind)) }
    }
}

extension Client {
    /// The lifecycle events of every request this client sends (retries, redirects, …), as a hot
    /// signal: observers see the events of requests that run while they observe.
    public var events: Signal<TaskEvent, Never> { eventHub.events }
}
