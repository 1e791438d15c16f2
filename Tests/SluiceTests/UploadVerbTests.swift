import Foundation
import Sluice
import SluiceTesting
import Synchronization
import Testing

/// Uploads of bytes in memory, a file and a provider, as producers and as tasks with progress.
@Suite("Upload verbs")
struct UploadVerbTests {
    /// Makes a body of `count` bytes on demand, in pieces, without a known length.
    private final class CountingReader: BodyReader {
        private var left: Int
        init(_ count: Int) { left = count }
        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            let count = min(buffer.count, left, 1000)
            for index in 0..<count { buffer[index] = UInt8(ascii: "x") }
            left -= count
            return count
        }
    }

    @Test func dataFileAndProviderUploadsSendTheirBytes() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let png = Data((0..<300).map { UInt8($0 % 256) })
            _ = try await client.upload(.data(png), to: "echo", contentType: "image/png").validate().value
            var sent = try #require(server.requests(to: "/echo").last)
            #expect(sent.method == "POST")
            #expect(sent.body == png)
            #expect(sent.headers["Content-Type"] == "image/png")

            let file = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString)")
            try Data(repeating: 7, count: 200_000).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            _ = try await client.upload(.file(file), to: "echo", method: .put).validate().value
            sent = try #require(server.requests(to: "/echo").last)
            #expect(sent.method == "PUT")
            #expect(sent.bodyLength == 200_000)
            #expect(sent.headers["Content-Type"] == "application/octet-stream")

            let provider = BodyProvider(length: nil) { CountingReader(5_000) }
            _ = try await client.upload(.provider(provider), to: "echo", headers: [.contentType("text/plain")]).value
            sent = try #require(server.requests(to: "/echo").last)
            #expect(sent.body == Data(repeating: UInt8(ascii: "x"), count: 5_000))
            #expect(sent.headers["Transfer-Encoding"] == "chunked", "an unknown length goes chunked")
            #expect(sent.headers["Content-Type"] == "text/plain", "the caller's own header is kept")
        }
    }

    @Test func anUploadTaskReportsItsProgressToTheEnd() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let body = Data(repeating: 1, count: 1_000_000)
            let task = try client.uploadTask(.data(body), to: "echo") { $0.headers["X-Upload"] = "1" }
            let seen = Mutex<[Int64]>([])
            let watching = task.uploadProgress.signal.observeValues { progress in
                seen.withLock { $0.append(progress.completed) }
            }
            defer { watching.dispose() }
            task.resume()
            _ = try await task.response.value
            #expect(task.uploadProgress.value.completed == 1_000_000)
            #expect(task.uploadProgress.value.expected == 1_000_000)
            #expect(seen.withLock { $0 }.last == 1_000_000)
            #expect(server.requests(to: "/echo").last?.headers["X-Upload"] == "1")
        }
    }

    @Test func aMissingFileFailsAndSendsNothing() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let missing = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString)")
            await expectFailure(.invalidBody) { try await client.upload(.file(missing), to: "echo").value }
            #expect(server.requests(to: "/echo").isEmpty)
        }
    }
}
