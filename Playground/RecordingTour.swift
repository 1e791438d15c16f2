import Foundation
import Sluice
import SluiceHAR
import SluiceTesting

/// Step: a HAR file of what the client did, and exchanges recorded once and replayed without a
/// network.
enum RecordingTour {
    static func run(baseURL: String) async throws {
        Tour.step("A HAR file of what the client did, for a browser's developer tools (secrets redacted)")
        let recorder = HARRecorder(bodies: true)
        let client = try Client(baseURL: baseURL, transport: recorder.transport(wrapping: CurlTransport.shared))
        _ = try await client.get("echo?api_key=s3cret", headers: [.bearer("t0k")]).value
        _ = try await client.get("redirect-chain/1").value  // two hops, two entries
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-tour.har")
        try recorder.write(to: file)
        for entry in recorder.document.log.entries {
            print(
                "  \(entry.request.method) \(entry.request.url) → \(entry.response.status), \((entry.time * 10).rounded() / 10) ms"
            )
        }
        print("  written to \(file.path)")
        try? FileManager.default.removeItem(at: file)

        Tour.step("Record real exchanges once, replay them in tests without a network")
        let recording = RecordingTransport(wrapping: CurlTransport.shared)
        let original = try await Client(baseURL: baseURL, transport: recording).get("bytes/64").value
        let replay = try Client(baseURL: baseURL, transport: ReplayTransport(recording.recording))
        print("  the replay's body is the server's: \(try await replay.get("bytes/64").value.body == original.body)")
        do {
            _ = try await replay.get("bytes/65").value
        } catch {
            print("  \(error.code): \(error.message.prefix(70))…")
        }
    }
}
