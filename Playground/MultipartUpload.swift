import Foundation
import Sluice

/// Step 4: a multipart form, streamed from disk.
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
    }
}
