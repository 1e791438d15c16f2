import Foundation
import SluiceTesting
import Testing

@testable import Sluice

@Suite("Downloads")
struct DownloadTests {
    @Test func aFinishedDownloadIsMovedIntoPlaceAndNothingElseIsLeft() async throws {
        try await withServer { server, transport in
            try await withDownloadDirectory { directory in
                let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
                let file = directory.appendingPathComponent("body.bin")
                try Data("old".utf8).write(to: file)
                let task = try client.download("bytes/200000", to: file)
                task.resume()
                let response = try await task.response.value
                #expect(response.status == 200)
                #expect(response.fileURL == file)
                #expect(try Data(contentsOf: file) == MockServer.deterministicBytes(count: 200_000))
                #expect(files(in: directory) == ["body.bin"])
                #expect(task.resumeData == nil)
                let sent = try #require(server.requests(to: "/bytes/200000").first)
                #expect(sent.headers["Range"] == nil)
                #expect(sent.headers["Accept-Encoding"] == "identity", "a download asks for the stored bytes")
            }
        }
    }

    @Test func anErrorStatusLeavesTheDestinationAsItWas() async throws {
        try await withServer { server, transport in
            try await withDownloadDirectory { directory in
                let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
                let file = directory.appendingPathComponent("kept.txt")
                try Data("old".utf8).write(to: file)
                server.script("/missing", .text("no such file", status: 404))
                let task = try client.download("missing", to: file)
                let response = try await task.response.value
                #expect(response.status == 404)
                #expect(response.fileURL == nil)
                #expect(String(decoding: response.body, as: UTF8.self) == "no such file", "the error body is in memory")
                #expect(try Data(contentsOf: file) == Data("old".utf8))
                #expect(files(in: directory) == ["kept.txt"])
                #expect(task.resumeData == nil)
            }
        }
    }

    @Test func aResetLeavesNoPartialFileAtTheDestinationAndGivesResumeData() async throws {
        try await withServer { server, transport in
            try await withDownloadDirectory { directory in
                let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
                let body = MockServer.deterministicBytes(count: 300_000)
                _ = FlakyDownload(
                    server, path: "/file", file: MockDownload(body: body, entityTag: "\"v1\""), cuts: [100_000])
                let file = directory.appendingPathComponent("file.bin")
                let task = try client.download("file", to: file)
                await #expect(throws: SluiceError.self) { try await task.response.value }
                #expect(!FileManager.default.fileExists(atPath: file.path))
                let resume = try #require(task.resumeData)
                #expect(resume.validator == .entityTag("\"v1\""))
                #expect(resume.bytesReceived > 0 && resume.bytesReceived <= 100_000)
                #expect(resume.expectedLength == 300_000)
                #expect(resume.destination == file)
                let kept = try Data(contentsOf: resume.temporaryFile)
                #expect(kept.count >= resume.bytesReceived)
                #expect(kept.prefix(Int(resume.bytesReceived)) == body.prefix(Int(resume.bytesReceived)))
                #expect(resume.temporaryFile.deletingLastPathComponent().path == directory.path)
            }
        }
    }

    @Test func withoutAValidatorAFailedDownloadLeavesNothing() async throws {
        try await withServer { server, transport in
            try await withDownloadDirectory { directory in
                let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
                let body = MockServer.deterministicBytes(count: 300_000)
                _ = FlakyDownload(server, path: "/file", file: MockDownload(body: body), cuts: [100_000])
                let task = try client.download("file", to: directory.appendingPathComponent("file.bin"))
                await #expect(throws: SluiceError.self) { try await task.response.value }
                #expect(task.resumeData == nil)
                #expect(files(in: directory).isEmpty)
            }
        }
    }

    @Test func theDownloadLimitFailsWithoutAPartialFile() async throws {
        try await withServer { server, transport in
            try await withDownloadDirectory { directory in
                var configuration = Client.Configuration()
                configuration.requestOptions.maximumDownloadSize = 100_000
                let client = try Client(
                    baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
                let file = directory.appendingPathComponent("big.bin")
                server.script(
                    "/chunked-big", wire: .text("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"),
                    .send(
                        Data("30D40\r\n".utf8) + MockServer.deterministicBytes(count: 200_000)
                            + Data("\r\n0\r\n\r\n".utf8)))
                for path in ["bytes/200000", "chunked-big"] {
                    let task = try client.download(path, to: file)
                    let error = try await #require(throws: SluiceError.self) { try await task.response.value }
                    #expect(error.code == .responseTooLarge, "\(path)")
                    #expect(files(in: directory).isEmpty, "\(path)")
                }
            }
        }
    }

    @Test func aDownloadPastTheInMemoryLimitWorksWithTheDefaults() async throws {
        try await withServer { server, transport in
            try await withDownloadDirectory { directory in
                let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
                let count = Int(RequestOptions().maximumBodySize) + (1 << 20)
                let file = directory.appendingPathComponent("big.bin")
                let response = try await client.download("bytes/\(count)", to: file).response.value
                #expect(response.status == 200)
                #expect(DownloadFileSize.of(file) == Int64(count))
            }
        }
    }

    @Test func aMatchingDigestPutsTheFileInPlace() async throws {
        try await withServer { server, transport in
            try await withDownloadDirectory { directory in
                let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
                let file = directory.appendingPathComponent("checked.bin")
                let body = MockServer.deterministicBytes(count: 500_000)
                let reference = directory.appendingPathComponent("reference.bin")
                try body.write(to: reference)
                let hex = try sha256sum(reference)
                try FileManager.default.removeItem(at: reference)
                let digest = try ExpectedDigest(.sha256, hex: hex.uppercased())
                let response = try await client.download("bytes/500000", to: file, expectedDigest: digest).response
                    .value
                #expect(response.fileURL == file)
                #expect(try Data(contentsOf: file) == body)
                #expect(files(in: directory) == ["checked.bin"])
            }
        }
    }

    @Test func aDigestMismatchIsATypedErrorAndTheFileIsNeverPutInPlace() async throws {
        try await withServer { server, transport in
            try await withDownloadDirectory { directory in
                let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
                let file = directory.appendingPathComponent("checked.bin")
                let digest = try ExpectedDigest(.sha256, bytes: Data(repeating: 7, count: 32))
                let task = try client.download("bytes/500000", to: file, expectedDigest: digest)
                let log = TaskEventLog(task)
                let error = try await #require(throws: SluiceError.self) { try await task.response.value }
                #expect(error.code == .digestMismatch)
                // The task's events end the same way, not with the response the digest rejected.
                try await eventually("the task completes") { !log.completions.isEmpty }
                #expect(log.completions.map { $0.error?.code } == [.digestMismatch])
                #expect(error.message.contains(digest.hex))
                #expect(files(in: directory).isEmpty, "neither the destination nor the temporary file")
                #expect(task.resumeData == nil)
            }
        }
    }

    @Test func aCachedResponseIsNotADownload() async throws {
        try await withServer { server, transport in
            try await withDownloadDirectory { directory in
                var configuration = Client.Configuration()
                configuration.cache = HTTPCache(memoryCapacity: 1 << 20)
                let client = try Client(
                    baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
                let body = MockServer.deterministicBytes(count: 10_000)
                server.script(
                    "/cached",
                    .init(status: 200, headers: ["Cache-Control": "max-age=600", "ETag": "\"c\""], body: body))
                #expect(try await client.get("cached").value.body == body)
                let file = directory.appendingPathComponent("cached.bin")
                let response = try await client.download("cached", to: file).response.value
                #expect(response.fileURL == file)
                #expect(try Data(contentsOf: file) == body)
                #expect(server.requests(to: "/cached").count == 2, "a download goes to the server")
                #expect(try await client.get("cached").value.body == body, "and leaves the cache as it was")
                #expect(server.requests(to: "/cached").count == 2)
            }
        }
    }

    @Test func digestsMatchKnownVectors() throws {
        let vectors: [(ExpectedDigest.Algorithm, String, String)] = [
            (.sha256, "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (.sha256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                .sha256, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (.sha1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (
                .sha512, "abc",
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd"
                    + "454d4423643ce80e2a9ac94fa54ca49f"
            ),
        ]
        for (algorithm, input, hex) in vectors {
            let expected = try ExpectedDigest(algorithm, hex: hex)
            #expect(try FileDigest.digest(algorithm, of: Data(input.utf8)) == expected.bytes)
        }
        // A million "a"s, fed through a file in pieces.
        try withTemporaryFile(Data(repeating: UInt8(ascii: "a"), count: 1_000_000)) { url in
            #expect(
                ExpectedDigest.hex(try FileDigest.digest(.sha256, ofFile: url))
                    == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
            let reference = try sha256sum(url)
            #expect(ExpectedDigest.hex(try FileDigest.digest(.sha256, ofFile: url)) == reference)
        }
    }

    @Test func badDigestsAreRefused() {
        #expect(throws: SluiceError.self) { try ExpectedDigest(.sha256, hex: "abc") }
        #expect(throws: SluiceError.self) { try ExpectedDigest(.sha256, hex: String(repeating: "g", count: 64)) }
        #expect(throws: SluiceError.self) { try ExpectedDigest(.sha512, hex: String(repeating: "0", count: 64)) }
        #expect(throws: SluiceError.self) { try ExpectedDigest(.sha1, bytes: Data(count: 19)) }
    }
}

/// `sha256sum`'s digest of a file, in lowercase hexadecimal.
func sha256sum(_ url: URL) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [url.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
}

func withTemporaryFile(_ data: Data, _ body: (URL) throws -> Void) throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-digest-\(UUID())")
    try data.write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    try body(url)
}

enum DownloadFileSize {
    static func of(_ url: URL) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
    }
}
