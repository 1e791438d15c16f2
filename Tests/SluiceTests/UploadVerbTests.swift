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

    // MARK: An AsyncSequence body

    @Test func anAsyncSequenceIsSentAsItYieldsWithoutHoldingUpOtherTransfers() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let (chunks, input) = AsyncStream.makeStream(of: Data.self)
            let upload = Mutex<Response?>(nil)
            _ = client.upload(.bytes(chunks), to: "echo").startWithValues { response in
                upload.withLock { $0 = response }
            }
            for index in 0..<4 {
                input.yield(Data("part \(index);".utf8))
                // While the upload waits for its next bytes, the transport serves others.
                let other = try await client.get("status/204").value
                #expect(other.status == 204)
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(upload.withLock { $0 } == nil, "the upload waits for the end of its body")
            input.finish()
            try await eventually("the upload completes") { upload.withLock { $0 } != nil }
            let sent = try #require(server.requests(to: "/echo").last)
            #expect(String(decoding: sent.body, as: UTF8.self) == "part 0;part 1;part 2;part 3;")
            #expect(sent.headers["Transfer-Encoding"] == "chunked")
        }
    }

    @Test func aLargeAsyncBodyArrivesWholeWithAKnownLength() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let piece = Data((0..<65_536).map { UInt8($0 % 251) })
            let pieces = AsyncStream<Data> { continuation in
                for _ in 0..<80 { continuation.yield(piece) }
                continuation.finish()
            }
            let response = try await client.upload(.bytes(pieces, length: 80 * 65_536), to: "echo").value
            #expect(response.status == 200)
            let sent = try #require(server.requests(to: "/echo").last)
            #expect(sent.bodyLength == 80 * 65_536)
            #expect(sent.headers["Content-Length"] == "\(80 * 65_536)")
        }
    }

    /// An endless body: it yields a kilobyte whenever asked, and its iterator says when it is let
    /// go (the task that pulls it has ended).
    struct EndlessBody: AsyncSequence, Sendable {
        final class Probe: Sendable {
            let pulls = Mutex(0)
            let released = Mutex(false)
        }
        final class Token: Sendable {
            let probe: Probe
            init(_ probe: Probe) { self.probe = probe }
            deinit { probe.released.withLock { $0 = true } }
        }
        struct AsyncIterator: AsyncIteratorProtocol {
            let token: Token
            mutating func next() async -> Data? {
                if Task.isCancelled { return nil }
                token.probe.pulls.withLock { $0 += 1 }
                return Data(repeating: 0x61, count: 1024)
            }
        }
        let probe: Probe
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(token: Token(probe)) }
    }

    /// Disposing of an upload whose body never ends lets the task that pulls the body go: it held
    /// the body's reader and waited for the transfer to take more, forever.
    @Test func disposingOfAnUploadEndsThePullingOfItsBody() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let probe = EndlessBody.Probe()
            let upload = client.upload(.bytes(EndlessBody(probe: probe)), to: "echo").start()
            try await eventually("the body is pulled") { probe.pulls.withLock { $0 } > 300 }
            upload.dispose()
            try await eventually("the pulling task lets the body go") { probe.released.withLock { $0 } }
        }
    }

    /// A buffer limit of nothing still moves the body, a chunk at a time: the pulling task waited
    /// for room below a limit of 0 that never came.
    @Test func aBufferLimitOfZeroStillSendsTheBody() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let parts = AsyncStream<Data> { continuation in
                for index in 0..<3 { continuation.yield(Data("part \(index);".utf8)) }
                continuation.finish()
            }
            var request = try client.makeRequest(.post, "echo")
            request.body = .stream(BodyProvider(bytes: parts, bufferLimit: 0))
            let response = try await client.send(request).value
            #expect(response.status == 200)
            let sent = try #require(server.requests(to: "/echo").last)
            #expect(String(decoding: sent.body, as: UTF8.self) == "part 0;part 1;part 2;")
        }
    }

    @Test func aFailingSequenceOrOneThatMustBeSentTwiceFailsWithInvalidBody() async throws {
        struct Broken: Error {}
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let failing = AsyncThrowingStream<Data, any Error> { continuation in
                continuation.yield(Data("half".utf8))
                continuation.finish(throwing: Broken())
            }
            let error = await expectFailure(.invalidBody) { try await client.upload(.bytes(failing), to: "echo").value }
            #expect(error?.message.contains("Broken") == true)

            // A 307 must send the body again: a sequence cannot be read twice.
            let target = server.url(for: .echo)
            let once = AsyncStream<Data> { continuation in
                continuation.yield(Data("once".utf8))
                continuation.finish()
            }
            let redirect = server.url(for: .redirect(status: 307, to: target)).absoluteString
            await expectFailure(.invalidBody) { try await client.upload(.bytes(once), to: redirect).value }
        }
    }
}
