import Foundation
import Synchronization

/// What one server's connections share with its owner: records, scripts, flaky counters.
///
/// Connections run on the server's event loop and tests read from their own tasks, so every
/// field sits behind one lock. Nothing here holds the `MockServer`, so forgetting a server
/// lets it deinitialize (and shut down).
final class MockServerState: Sendable {
    private struct Fields {
        var records: [RecordedRequest] = []
        var sequence = 0
        var connectionsAccepted = 0
        var connectionIDs = 0
        var scripts = ScriptBook()
        var wireScripts: [String: [WireStep]] = [:]
        var wireHandlers: [String: @Sendable (RecordedRequest) -> [WireStep]] = [:]
        var flakyAttempts: [String: Int] = [:]
    }

    private let fields = Mutex(Fields())

    /// Counts a new connection; returns its id.
    func connectionOpened() -> Int {
        fields.withLock { fields in
            fields.connectionsAccepted += 1
            fields.connectionIDs += 1
            return fields.connectionIDs
        }
    }

    var connectionCount: Int { fields.withLock { $0.connectionsAccepted } }

    /// Records a fully received request.
    func record(_ request: IncomingRequest, connectionID: Int, remotePort: Int) -> RecordedRequest {
        fields.withLock { fields in
            fields.sequence += 1
            let recorded = request.recorded(
                connectionID: connectionID, remotePort: remotePort, sequenceNumber: fields.sequence,
                limit: MockServer.recordedBodyLimit)
            fields.records.append(recorded)
            return recorded
        }
    }

    var records: [RecordedRequest] { fields.withLock { $0.records } }

    /// Forgets the records and the connection count (connection ids keep counting up).
    func resetRecords() {
        fields.withLock { fields in
            fields.records = []
            fields.connectionsAccepted = 0
        }
    }

    func script(_ path: String, _ responses: [ScriptedResponse]) {
        fields.withLock { $0.scripts.set(path, responses) }
    }

    /// The next scripted response for a decoded path, if the path is scripted.
    func nextScriptedResponse(for path: String) -> ScriptedResponse? {
        fields.withLock { $0.scripts.next(for: path) }
    }

    func script(_ path: String, wire steps: [WireStep]) {
        fields.withLock { $0.wireScripts[ScriptBook.normalize(path)] = steps }
    }

    func respond(_ path: String, handler: @escaping @Sendable (RecordedRequest) -> [WireStep]) {
        fields.withLock { $0.wireHandlers[ScriptBook.normalize(path)] = handler }
    }

    /// The wire handler for a decoded path, if it has one.
    func wireHandler(for path: String) -> (@Sendable (RecordedRequest) -> [WireStep])? {
        fields.withLock { $0.wireHandlers[path] }
    }

    /// The wire script for a decoded path, if it has one.
    func wireScript(for path: String) -> [WireStep]? {
        fields.withLock { $0.wireScripts[path] }
    }

    /// Counts one more attempt at a flaky key; returns the attempt's number (1, 2, …).
    func flakyAttempt(for key: String) -> Int {
        fields.withLock { fields in
            fields.flakyAttempts[key, default: 0] += 1
            return fields.flakyAttempts[key]!
        }
    }
}
