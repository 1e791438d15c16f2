import Foundation
import Sluice
import SluiceTesting
import Synchronization

/// A fresh directory for one test's downloads, removed after `body`.
func withDownloadDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-downloads-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// The names of the files in `directory`, sorted.
func files(in directory: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
}

/// Serves `file` at `path`, resetting the connection after `cuts[n]` body bytes of the n-th
/// request (no reset once the cuts run out); the file can be changed between requests.
final class FlakyDownload: Sendable {
    let file: Mutex<MockDownload>
    private let cuts: Mutex<[Int?]>

    init(_ server: MockServer, path: String, file: MockDownload, cuts: [Int?]) {
        self.file = Mutex(file)
        self.cuts = Mutex(cuts)
        server.respond(path) { [self] request in
            let cut = self.cuts.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            return self.file.withLock { $0 }.reply(to: request, resettingAfter: cut)
        }
    }
}

/// Collects one task's events.
final class TaskEventLog: Sendable {
    let events = Lock<[TaskEvent.Kind]>([])

    init(_ task: RequestTask) {
        let events = self.events
        _ = task.events.observeValues { event in events.withLock { $0.append(event.kind) } }
    }

    var restarts: [DownloadRestart] {
        events.withLock { $0 }.compactMap {
            if case .downloadRestarted(let reason) = $0 { return reason } else { return nil }
        }
    }

    /// The task's completions (one at most, by the events' contract).
    var completions: [TaskCompletion] {
        events.withLock { $0 }.compactMap {
            if case .completed(let completion) = $0 { return completion } else { return nil }
        }
    }

    var progress: [TransferProgress] {
        events.withLock { $0 }.compactMap {
            if case .downloadProgress(let progress) = $0 { return progress } else { return nil }
        }
    }
}
