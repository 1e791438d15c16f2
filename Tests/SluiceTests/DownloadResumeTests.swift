import Foundation
import SluiceTesting
import Synchronization
import Testing

@testable import Sluice

@Suite("Resumed downloads")
struct DownloadResumeTests {
    static let body = MockServer.deterministicBytes(count: 300_000)

    /// A download of `/file` that fails after about 100,000 bytes; its resume data.
    static func failedDownload(_ client: Client, to file: URL) async throws -> ResumeData {
        let task = try client.download("file", to: file)
        await #expect(throws: SluiceError.self) { try await task.response.value }
        return try #require(task.resumeData)
    }

    /// A download of `/file` that failed after about 100,000 bytes, from a server that cuts its
    /// replies after `cuts`, with everything a test needs to resume it.
    struct FailedDownload {
        let server: MockServer
        let client: Client
        let flaky: FlakyDownload
        let directory: URL
        let file: URL
        let resume: ResumeData
    }

    /// Runs `body` with a failed download of `/file` (an entity tag of `"v1"`), in a fresh
    /// download directory, against a fresh server.
    static func withFailedDownload(
        cuts: [Int] = [100_000], _ body: (FailedDownload) async throws -> Void
    ) async throws {
        try await withServer { server, transport in
            try await withDownloadDirectory { directory in
                let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
                let flaky = FlakyDownload(
                    server, path: "/file", file: MockDownload(body: Self.body, entityTag: "\"v1\""), cuts: cuts)
                let file = directory.appendingPathComponent("file.bin")
                let resume = try await failedDownload(client, to: file)
                try await body(
                    FailedDownload(
                        server: server, client: client, flaky: flaky, directory: directory, file: file, resume: resume))
            }
        }
    }

    @Test func aResumedDownloadAsksForTheRestAndAppendsIt() async throws {
        try await Self.withFailedDownload { download in
            let task = try download.client.download(resuming: download.resume)
            let log = TaskEventLog(task)
            let response = try await task.response.value
            #expect(response.status == 206)
            #expect(response.fileURL == download.file)
            #expect(try Data(contentsOf: download.file) == Self.body)
            #expect(files(in: download.directory) == ["file.bin"])
            #expect(log.restarts.isEmpty)
            let sent = try #require(download.server.requests(to: "/file").last)
            #expect(sent.headers["Range"] == "bytes=\(download.resume.bytesReceived)-")
            #expect(sent.headers["If-Range"] == "\"v1\"")
            #expect(task.downloadProgress.value.completed == 300_000, "progress counts the bytes resumed")
            #expect(task.downloadProgress.value.fraction == 1)
        }
    }

    @Test func resumeDataWorksAcrossProcessesAsJSON() async throws {
        try await withServer { server, transport in
            try await withDownloadDirectory { directory in
                let file = directory.appendingPathComponent("file.bin")
                _ = FlakyDownload(
                    server, path: "/file",
                    file: MockDownload(body: Self.body, lastModified: "Wed, 01 Jan 2025 00:00:00 GMT"), cuts: [100_000])
                let saved = try JSONEncoder().encode(
                    try await Self.failedDownload(
                        try Client(baseURL: server.baseURL.absoluteString, transport: transport), to: file))
                // A new client, as a new process would have, from the saved bytes alone.
                let resume = try JSONDecoder().decode(ResumeData.self, from: saved)
                #expect(resume.validator == .lastModified("Wed, 01 Jan 2025 00:00:00 GMT"))
                let client = try Client(transport: transport)
                let response = try await client.download(resuming: resume).response.value
                #expect(response.status == 206)
                #expect(try Data(contentsOf: file) == Self.body)
            }
        }
    }

    @Test func changedContentStartsOverAndSaysSo() async throws {
        try await Self.withFailedDownload { download in
            let changed = MockServer.deterministicBytes(count: 250_000, offset: 7)
            download.flaky.file.withLock { $0 = MockDownload(body: changed, entityTag: "\"v2\"") }
            let task = try download.client.download(resuming: download.resume)
            let log = TaskEventLog(task)
            let response = try await task.response.value
            #expect(response.status == 200)
            #expect(try Data(contentsOf: download.file) == changed)
            #expect(log.restarts == [.contentChanged])
            #expect(files(in: download.directory) == ["file.bin"])
        }
    }

    @Test func aRestartIsReportedWithItsHeadAndItsBytesCanBeResumed() async throws {
        try await Self.withFailedDownload(cuts: [100_000, 50_000]) { download in
            let changed = MockServer.deterministicBytes(count: 250_000, offset: 7)
            download.flaky.file.withLock { $0 = MockDownload(body: changed, entityTag: "\"v2\"") }
            // The new content's reply is cut too: the restart was reported all the same.
            let task = try download.client.download(resuming: download.resume)
            let log = TaskEventLog(task)
            await #expect(throws: SluiceError.self) { try await task.response.value }
            #expect(log.restarts == [.contentChanged])
            let again = try #require(task.resumeData)
            #expect(again.validator == .entityTag("\"v2\""))
            #expect(again.bytesReceived <= 50_000)
            let response = try await download.client.download(resuming: again).response.value
            #expect(response.status == 206)
            #expect(try Data(contentsOf: download.file) == changed)
        }
    }

    @Test func aServerWithoutRangesStartsOver() async throws {
        try await Self.withFailedDownload { download in
            download.flaky.file.withLock { $0.servesRanges = false }
            let task = try download.client.download(resuming: download.resume)
            let log = TaskEventLog(task)
            #expect(try await task.response.value.status == 200)
            #expect(try Data(contentsOf: download.file) == Self.body)
            #expect(log.restarts == [.rangeIgnored])
        }
    }

    @Test func aRefusedRangeStartsOverOnce() async throws {
        try await Self.withFailedDownload { download in
            // Shorter content under the same tag: the range starts past its end.
            let short = Data(Self.body.prefix(Int(download.resume.bytesReceived) / 2))
            download.flaky.file.withLock { $0.body = short }
            let task = try download.client.download(resuming: download.resume)
            let log = TaskEventLog(task)
            #expect(try await task.response.value.status == 200)
            #expect(try Data(contentsOf: download.file) == short)
            #expect(log.restarts == [.rangeNotSatisfiable])
            #expect(download.server.requests(to: "/file").last?.headers["Range"] == nil)
            // The task completes with the download, not with the 416 that led to the restart.
            try await eventually("the task completes") { !log.completions.isEmpty }
            #expect(log.completions.map { $0.response?.status } == [200])
            #expect(log.completions.first?.response?.fileURL == download.file)
        }
    }

    @Test func aRangeOfOtherBytesStartsOver() async throws {
        try await Self.withFailedDownload { download in
            // A download.server that answers every range with the first 10 bytes, then all of it.
            let whole = MockDownload(body: Self.body, entityTag: "\"v1\"")
            download.server.respond("/file") { request in
                guard request.headers["Range"] != nil else { return whole.reply(to: request) }
                let head =
                    "HTTP/1.1 206 Partial Content\r\nETag: \"v1\"\r\nContent-Range: bytes 0-9/300000\r\n"
                    + "Content-Length: 10\r\n\r\n"
                return [.text(head), .send(Self.body.prefix(10))]
            }
            let task = try download.client.download(resuming: download.resume)
            let log = TaskEventLog(task)
            #expect(try await task.response.value.status == 200)
            #expect(try Data(contentsOf: download.file) == Self.body)
            #expect(log.restarts == [.rangeMismatch])
            try await eventually("the task completes") { !log.completions.isEmpty }
            #expect(log.completions.map { $0.response?.status } == [200])
        }
    }

    /// A 206 whose body is shorter than its `Content-Range` (its Content-Length says so) leaves the
    /// file short: the rest is asked for from where the file ends. Asking from the range's end
    /// instead left zeros where the missing bytes belonged, and the download succeeded.
    @Test func aRangeShorterThanItsContentRangeIsAskedForAgainFromWhereTheFileEnds() async throws {
        try await Self.withFailedDownload { download in
            let kept = download.resume.bytesReceived
            let whole = MockDownload(body: Self.body, entityTag: "\"v1\"")
            let first = Mutex(true)
            download.server.respond("/file") { request in
                let isFirst = first.withLock { value -> Bool in
                    defer { value = false }
                    return value
                }
                guard isFirst, request.headers["Range"] != nil else { return whole.reply(to: request) }
                // Claims the next 1,000 bytes, sends 400 of them.
                let head =
                    "HTTP/1.1 206 Partial Content\r\nETag: \"v1\"\r\n"
                    + "Content-Range: bytes \(kept)-\(kept + 999)/\(Self.body.count)\r\nContent-Length: 400\r\n\r\n"
                return [.text(head), .send(Self.body[Int(kept)..<Int(kept) + 400])]
            }
            let task = try download.client.download(resuming: download.resume)
            let log = TaskEventLog(task)
            #expect(try await task.response.value.status == 206)
            #expect(try Data(contentsOf: download.file) == Self.body)
            #expect(log.restarts.isEmpty)
            #expect(download.server.requests(to: "/file").last?.headers["Range"] == "bytes=\(kept + 400)-")
        }
    }

    /// A 206 that ends before the content does, to a request without a range and with no validator
    /// to ask for the rest by: the download starts over once, then fails. Asking for the rest
    /// without a validator sent the same request, got the same answer, and went round for ever.
    @Test func aPartialAnswerWithoutAValidatorFailsRatherThanLoops() async throws {
        try await withServer { server, transport in
            try await withDownloadDirectory { directory in
                let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
                server.script(
                    "/partial",
                    wire: .text(
                        "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-99/200\r\nContent-Length: 100\r\n\r\n"),
                    .send(Data(repeating: 0x61, count: 100)))
                let file = directory.appendingPathComponent("partial.bin")
                let task = try client.download("partial", to: file)
                await expectFailure(.downloadFailed) { try await task.response.value }
                #expect(server.requests(to: "/partial").count == 2)
                #expect(!FileManager.default.fileExists(atPath: file.path))
            }
        }
    }

    /// A server that ignores `If-Range` answers a range of a changed content with a 206 under
    /// its new entity tag: its bytes are not joined to the old ones, the download starts over.
    @Test func aRangeOfAnotherContentStartsOver() async throws {
        try await Self.withFailedDownload { download in
            let changed = Data(Self.body.reversed())
            let current = MockDownload(body: changed, entityTag: "\"v2\"")
            let kept = Int(download.resume.bytesReceived)
            download.server.respond("/file") { request in
                guard request.headers["Range"] != nil else { return current.reply(to: request) }
                // The rest of the new content, as if `If-Range: "v1"` had not been sent.
                let head =
                    "HTTP/1.1 206 Partial Content\r\nETag: \"v2\"\r\n"
                    + "Content-Range: bytes \(kept)-\(changed.count - 1)/\(changed.count)\r\n"
                    + "Content-Length: \(changed.count - kept)\r\n\r\n"
                return [.text(head), .send(changed[kept...])]
            }
            let task = try download.client.download(resuming: download.resume)
            let log = TaskEventLog(task)
            #expect(try await task.response.value.status == 200)
            #expect(try Data(contentsOf: download.file) == changed)
            #expect(log.restarts == [.contentChanged])
            #expect(download.server.requests(to: "/file").last?.headers["Range"] == nil)
        }
    }

    /// A `Content-Range` ending at the last byte `Int64` holds has an end that cannot be counted:
    /// it is refused, where counting it trapped, taking the process down.
    @Test func aRangeEndingAtInt64MaxIsRefusedNotATrap() async throws {
        try await Self.withFailedDownload { download in
            let whole = MockDownload(body: Self.body, entityTag: "\"v1\"")
            let kept = download.resume.bytesReceived
            download.server.respond("/file") { request in
                guard request.headers["Range"] != nil else { return whole.reply(to: request) }
                let head =
                    "HTTP/1.1 206 Partial Content\r\nETag: \"v1\"\r\n"
                    + "Content-Range: bytes \(kept)-\(Int64.max)/*\r\nContent-Length: 0\r\n\r\n"
                return [.text(head)]
            }
            let task = try download.client.download(resuming: download.resume)
            let log = TaskEventLog(task)
            #expect(try await task.response.value.status == 200)
            #expect(try Data(contentsOf: download.file) == Self.body)
            #expect(log.restarts == [.rangeMismatch])
        }
    }

    @Test func aTemporaryFileShorterThanTheResumeDataIsDetected() async throws {
        try await Self.withFailedDownload { download in
            try Data(Self.body.prefix(10)).write(to: download.resume.temporaryFile)
            let task = try download.client.download(resuming: download.resume)
            let log = TaskEventLog(task)
            #expect(try await task.response.value.status == 200)
            #expect(try Data(contentsOf: download.file) == Self.body)
            #expect(log.restarts == [.partialFileShorter(expected: download.resume.bytesReceived, found: 10)])
            #expect(download.server.requests(to: "/file").last?.headers["Range"] == nil)
        }
    }

    @Test func aCancelledDownloadCanBeResumed() async throws {
        try await withServer { server, transport in
            try await withDownloadDirectory { directory in
                let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
                let whole = MockDownload(body: Self.body, entityTag: "\"v1\"")
                let first = Mutex(true)
                server.respond("/file") { request in
                    // The first reply stalls after 100,000 bytes.
                    let isFirst = first.withLock { value -> Bool in
                        defer { value = false }
                        return value
                    }
                    guard isFirst else { return whole.reply(to: request) }
                    return Array(whole.reply(to: request, resettingAfter: 100_000).dropLast()) + [.stall]
                }
                let file = directory.appendingPathComponent("file.bin")
                let task = try client.download("file", to: file)
                task.resume()
                try await eventually("the first bytes arrive") { task.downloadProgress.value.completed > 0 }
                task.cancel()
                await #expect(throws: SluiceError.self) { try await task.response.value }
                #expect(task.state.value == .cancelled)
                let resume = try #require(task.resumeData)
                #expect(!FileManager.default.fileExists(atPath: file.path))
                let response = try await client.download(resuming: resume).response.value
                #expect(response.status == 206)
                #expect(try Data(contentsOf: file) == Self.body)
            }
        }
    }

    @Test func retriesAndRedirectsApplyToADownload() async throws {
        try await withServer { server, transport in
            try await withDownloadDirectory { directory in
                var configuration = Client.Configuration()
                configuration.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1))
                let client = try Client(
                    baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
                _ = FlakyDownload(
                    server, path: "/file", file: MockDownload(body: Self.body, entityTag: "\"v1\""), cuts: [100_000])
                server.script("/moved", .init(status: 302, headers: ["Location": "/file"]))
                let file = directory.appendingPathComponent("file.bin")
                let task = try client.download("moved", to: file)
                let log = TaskEventLog(task)
                let response = try await task.response.value
                #expect(response.status == 200)
                #expect(try Data(contentsOf: file) == Self.body)
                #expect(files(in: directory) == ["file.bin"])
                #expect(server.requests(to: "/file").count == 2, "the reset was retried")
                let kinds = log.events.withLock { $0 }.map(name)
                #expect(kinds.contains("redirected 302") && kinds.contains("retried 2"))
            }
        }
    }

    @Test func contentRangesAreRead() {
        #expect(ContentRange("bytes 0-9/100") == ContentRange(bytes: 0...9, completeLength: 100))
        #expect(ContentRange("bytes 5-9/*") == ContentRange(bytes: 5...9, completeLength: nil))
        #expect(ContentRange("bytes */100") == ContentRange(bytes: nil, completeLength: 100))
        #expect(ContentRange("BYTES  1-1/2 ") == ContentRange(bytes: 1...1, completeLength: 2))
        for bad in [
            "", "bytes", "bytes */*", "bytes 9-5/100", "bytes 0-100/100", "items 0-9/100", "bytes -1-9/100",
            "bytes 0-9/1x", "bytes 0-99999999999999999999/*", "bytes 0 - 9/100", "bytes 0-9",
            "bytes 0-9223372036854775807/*",
        ] {
            #expect(ContentRange(bad) == nil, "\(bad)")
        }
    }

    @Test func aValidatorIsContradictedOnlyByAnotherOfItsKind() {
        let tag = DownloadValidator.entityTag("\"a\"")
        #expect(tag.isContradicted(by: ["ETag": "\"b\""]))
        #expect(!tag.isContradicted(by: ["ETag": " \"a\" "]))
        #expect(tag.isContradicted(by: ["ETag": "W/\"b\""]), "another tag, even weak, is another content")
        #expect(!tag.isContradicted(by: ["ETag": "W/\"a\""]), "a weak form of the same tag may be the same content")
        #expect(!tag.isContradicted(by: ["Last-Modified": "d"]))
        let date = DownloadValidator.lastModified("Tue, 01 Dec 2026 10:00:00 GMT")
        #expect(date.isContradicted(by: ["Last-Modified": "Wed, 02 Dec 2026 10:00:00 GMT"]))
        #expect(!date.isContradicted(by: ["Last-Modified": "Tue, 01 Dec 2026 10:00:00 GMT"]))
        #expect(!date.isContradicted(by: [:]))
    }

    @Test func validatorsAreStrongOnly() {
        #expect(DownloadValidator(headers: ["ETag": "\"a\""]) == .entityTag("\"a\""))
        #expect(DownloadValidator(headers: ["ETag": "W/\"a\"", "Last-Modified": "d"]) == .lastModified("d"))
        #expect(DownloadValidator(headers: ["ETag": "W/\"a\""]) == nil)
        #expect(DownloadValidator(headers: [:]) == nil)
    }
}
