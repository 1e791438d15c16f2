import Foundation
import Sluice
import SluiceTesting
import Testing

@Suite struct RecordReplayTests {
    @Test func recordedExchangesReplayWithoutAServer() async throws {
        let file = try TemporaryFile(named: "exchanges.json")
        defer { file.cleanUp() }
        let (echoURL, bytesURL, live) = try await withServer { server, transport in
            let recorder = RecordingTransport(wrapping: transport)
            let client = try Client(transport: recorder)
            let echoURL = server.url(for: .echo, query: [URLQueryItem(name: "api_key", value: "k3y")])
            let bytesURL = server.url(for: .bytes(500))
            let live = try await client.post(
                echoURL.absoluteString, headers: ["Authorization": "Bearer s3cret"],
                modify: { $0.body = .data(Data("one".utf8)) }
            ).value
            _ = try await client.get(bytesURL.absoluteString).value
            try recorder.recording.write(to: file.url)
            return (echoURL, bytesURL, live)
        }
        let text = try String(contentsOf: file.url, encoding: .utf8)
        #expect(!text.contains("s3cret") && !text.contains("k3y"))

        // The server is gone: the replay answers from the file.
        let replay = try ReplayTransport(contentsOf: file.url)
        let client = try Client(transport: replay)
        let bytes = try await client.get(bytesURL.absoluteString).value
        #expect(bytes.body == MockServer.deterministicBytes(count: 500))
        #expect(bytes.headers["X-Checksum"] == MockServer.deterministicChecksum(count: 500))
        let echo = try await client.post(echoURL.absoluteString, modify: { $0.body = .data(Data("one".utf8)) }).value
        #expect(echo.status == live.status)
        #expect(echo.body == live.body)
        #expect(replay.unplayed.isEmpty)
    }

    @Test func aRequestWithoutARecordingFailsNamingIt() async throws {
        let recording = try await withServer { server, transport in
            let recorder = RecordingTransport(wrapping: transport)
            let client = try Client(transport: recorder)
            _ = try await client.post(
                server.url(for: .echo).absoluteString, modify: { $0.body = .data(Data("recorded".utf8)) }
            ).value
            return (recorder.recording, server.url(for: .echo))
        }
        let client = try Client(transport: ReplayTransport(recording.0))
        do {
            _ = try await client.post(recording.1.absoluteString, modify: { $0.body = .data(Data("other".utf8)) }).value
            Issue.record("A request without a recording was answered.")
        } catch {
            #expect(error.code == .noRecordedExchange)
            #expect(error.message.contains("POST \(recording.1.absoluteString) with a body of 5 bytes"))
            #expect(error.message.contains("another body"))
        }
    }

    @Test func eachRecordingAnswersOnceInOrder() async throws {
        let (recording, url) = try await withServer { server, transport in
            let recorder = RecordingTransport(wrapping: transport)
            let client = try Client(transport: recorder)
            server.script("/poll", .text("first"), .text("second"))
            let url = server.url(for: .scripted(path: "/poll"))
            _ = try await client.get(url.absoluteString).value
            _ = try await client.get(url.absoluteString).value
            return (recorder.recording, url)
        }
        let client = try Client(transport: ReplayTransport(recording))
        #expect(try await client.get(url.absoluteString).string().value == "first")
        #expect(try await client.get(url.absoluteString).string().value == "second")
        await #expect(throws: SluiceError.self) { try await client.get(url.absoluteString).value }
    }

    @Test func aFileThatIsNoRecordingFailsNamingIt() throws {
        let file = try TemporaryFile(named: "bad.json")
        defer { file.cleanUp() }
        try Data("{\"exchanges\": 3}".utf8).write(to: file.url)
        #expect(throws: SluiceError.self) { try ReplayTransport(contentsOf: file.url) }
    }
}
