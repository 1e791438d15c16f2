import Foundation
import Sluice
import SluiceTesting
import Testing

/// The accessors on `TaskEvent.Kind` that spare a `switch` when matching events.
@Suite("Task event accessors")
struct TaskEventMatchingTests {
    @Test func eachAccessorAnswersForItsOwnCaseOnly() throws {
        let request = try Client(baseURL: "https://example.com/").makeRequest(.get, "x")
        let head = ResponseHead(status: 200, headers: [:], httpVersion: .http1_1)
        let progress = TransferProgress(completed: 5, expected: 10)
        let completion = TaskCompletion(response: Response(status: 204, headers: [:], request: request), error: nil)
        let failed = TaskCompletion(response: nil, error: SluiceError(.connectionLost, "gone"))
        let kinds: [TaskEvent.Kind] = [
            .created, .resumed, .suspended, .cancelled, .uploadProgress(progress), .downloadProgress(progress),
            .responseReceived(head), .completed(completion), .completed(failed),
        ]
        #expect(kinds.map(\.isTerminal) == [false, false, false, true, false, false, false, true, true])
        #expect(kinds.compactMap(\.progress).map(\.completed) == [5, 5])
        #expect(kinds.compactMap(\.responseHead).map(\.status) == [200])
        #expect(kinds.compactMap(\.completion).count == 2)
        #expect(kinds.compactMap(\.error).map(\.code) == [.cancelled, .connectionLost])
        #expect(kinds.compactMap(\.retry).isEmpty && kinds.compactMap(\.redirect).isEmpty)
        let event = TaskEvent(taskID: TaskID(rawValue: 1), request: request, kind: .completed(completion))
        #expect(event.isTerminal)
    }

    @Test func terminalEventsOfAClientsRequestsCanBeFilteredWithoutASwitch() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let statuses = Lock<[Int]>([])
            let watching = client.events.filter(\.isTerminal).observeValues { event in
                statuses.withLock { $0.append(event.kind.completion?.response?.status ?? 0) }
            }
            defer { watching.dispose() }
            _ = try await client.get("status/201").value
            _ = try await client.get("status/404").value
            try await eventually("both requests end") { statuses.withLock { $0.count } == 2 }
            #expect(statuses.withLock { $0 } == [201, 404])
        }
    }
}
