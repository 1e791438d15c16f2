import Foundation
import Sluice

/// Step: a download to a file that is cancelled part-way and resumed from its resume data; the
/// destination only ever holds the whole file.
enum ResumableDownloads {
    static func run(_ client: Client) async throws {
        Tour.step("A download cancelled part-way, then resumed where it stopped (Range and If-Range)")
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-tour-download.bin")
        defer { try? FileManager.default.removeItem(at: destination) }
        let task = try client.download("range/67108864", to: destination)
        // Held at its first bytes, so the tour can cancel it part-way on any machine.
        let firstBytes = task.events.observeValues { event in
            if case .downloadProgress(let progress) = event.kind, progress.completed > 0 { task.suspend() }
        }
        task.resume()
        while task.state.value == .running { try await Task.sleep(for: .milliseconds(10)) }
        firstBytes.dispose()
        task.cancel()
        if (try? await task.response.value) != nil { return print("  (the download finished before it was cancelled)") }
        guard let resumeData = task.resumeData else { return print("  (no resume data: the server sent no ETag)") }
        print("  cancelled with \(resumeData.bytesReceived) of \(resumeData.expectedLength ?? 0) bytes kept,")
        print("  nothing at the destination yet: \(!FileManager.default.fileExists(atPath: destination.path))")
        // Resume data is Codable: it could be saved and resumed by the next run of the program.
        let saved = try JSONEncoder().encode(resumeData)
        let resumed = try client.download(resuming: try JSONDecoder().decode(ResumeData.self, from: saved))
        let response = try await resumed.response.value
        let size = (try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? 0
        print(
            "  resumed: \(response.status) with \(response.headers["Content-Range"] ?? "-"); the file has \(size) bytes"
        )
    }
}
