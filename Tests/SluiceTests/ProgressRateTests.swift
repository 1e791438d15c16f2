import Foundation
import Sluice
import SluiceTesting
import Testing

@Suite("Progress at a human rate")
struct ProgressRateTests {
    static let count = 10_000_000

    /// The download progress events of one 10 MB download with `interval`, and how long it took.
    static func progressEvents(
        _ server: MockServer, _ transport: CurlTransport, interval: Duration?, toFile: Bool
    ) async throws -> (events: [TransferProgress], seconds: Double) {
        var configuration = Client.Configuration()
        if let interval { configuration.requestOptions.progressInterval = interval }
        let client = try Client(
            baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
        return try await withDownloadDirectory { directory in
            let task =
                toFile
                ? try client.download("bytes/\(count)", to: directory.appendingPathComponent("ten.bin"))
                : try client.task(.get, "bytes/\(count)")
            let log = TaskEventLog(task)
            let start = ContinuousClock.now
            _ = try await task.response.value
            let elapsed = ContinuousClock.now - start
            return (log.progress, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
    }

    @Test(arguments: [true, false])
    func aTenMegabyteTransferReportsAboutSixtyTimesASecondFromZeroToAll(toFile: Bool) async throws {
        try await withServer { server, transport in
            let (events, seconds) = try await Self.progressEvents(server, transport, interval: nil, toFile: toFile)
            let every = try await Self.progressEvents(server, transport, interval: .zero, toFile: toFile).events
            print(
                "progress events for 10 MB (\(toFile ? "file" : "memory")): \(events.count) throttled in \(seconds) s, \(every.count) unthrottled"
            )
            #expect(events.last?.completed == Int64(Self.count), "100% is always reported")
            #expect(events.last?.expected == Int64(Self.count))
            #expect(events.count <= Int(seconds * 60) + 3, "at most ~60 a second, plus the first and the last")
            #expect(every.count > events.count)
            #expect(events.map(\.completed) == events.map(\.completed).sorted())
            if toFile { #expect(events.first?.completed == 0, "a download reports 0% with its head") }
        }
    }

    @Test func aNegativeIntervalIsRefused() async throws {
        var configuration = Client.Configuration()
        configuration.requestOptions.progressInterval = .milliseconds(-1)
        let client = try Client(baseURL: "http://127.0.0.1:1", configuration: configuration)
        let error = await #expect(throws: SluiceError.self) { try await client.get("x").value }
        #expect(error?.code == .invalidOption)
    }
}

@Suite("Starting tasks")
struct TaskStartTests {
    @Test func awaitingTheResponseOfATaskNobodyResumedStartsIt() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let task = try client.task(.get, "bytes/10")
            #expect(server.recordedRequests.isEmpty)
            let response = try await task.response.value
            #expect(response.status == 200)
            #expect(task.state.value == .completed)
            #expect(server.recordedRequests.count == 1)
        }
    }

    @Test func aTaskSuspendedBeforeItStartedWaitsForResume() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let task = try client.task(.get, "bytes/10")
            task.suspend()
            #expect(task.state.value == .suspended)
            let outcome = Task { try await task.response.value }
            try await Task.sleep(for: .milliseconds(200))
            #expect(server.recordedRequests.isEmpty, "subscribing does not start a task held on purpose")
            task.resume()
            #expect(try await outcome.value.status == 200)
            #expect(server.recordedRequests.count == 1)
        }
    }

    @Test func aTaskSuspendedBeforeItStartedCanBeCancelled() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let task = try client.task(.get, "bytes/10")
            task.suspend()
            task.cancel()
            let error = await #expect(throws: SluiceError.self) { try await task.response.value }
            #expect(error?.code == .cancelled)
            #expect(task.state.value == .cancelled)
            #expect(server.recordedRequests.isEmpty)
        }
    }
}
