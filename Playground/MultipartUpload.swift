import Foundation
import Sluice

/// Step 4: a multipart form streamed from disk, and an upload task with its progress.
enum MultipartUpload {
    static func run(_ client: Client) async throws {
        Tour.step("Upload a multipart form: fields first, then a file streamed from disk")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-tour-\(UUID()).png")
        try Data(repeating: 0x89, count: 256 * 1024).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let upload = client.upload(
            multipartFormData: { form in
                form.append("A picture of the team", name: "caption")
                form.append(fileURL: file, name: "photo")  // file name and image/png from the URL
            },
            to: "echo",
            parameters: ["album": ["id": 7]])
        let response = try await upload.value
        print(
            "  \(response.status), the server received \(response.request.body.knownLength ?? 0) bytes of multipart body"
        )

        Tour.step("An upload task: 8 MiB from an AsyncSequence, its progress as it goes out")
        let piece = Data(repeating: 0x2A, count: 1 << 20)
        let chunks = AsyncStream<Data> { continuation in
            for _ in 0..<8 { continuation.yield(piece) }
            continuation.finish()
        }
        let task = try client.uploadTask(.bytes(chunks, length: 8 << 20), to: "echo", contentType: "text/plain")
        // A progress observer runs on the transport's thread; it keeps no state of its own here.
        let watching = task.uploadProgress.signal.observeValues { progress in
            ProgressBar.show(fraction: progress.fraction ?? 0, detail: "\(progress.completed >> 10) KiB sent")
        }
        let sent = try await task.response.value  // awaiting starts the task
        watching.dispose()
        ProgressBar.finish(detail: "\(sent.status), \(task.uploadProgress.value.completed >> 20) MiB sent")
    }
}
