import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Synchronization
import Testing

/// A short name for each event kind, to compare sequences.
func name(_ kind: TaskEvent.Kind) -> String {
    switch kind {
    case .created: return "created"
    case .resumed: return "resumed"
    case .suspended: return "suspended"
    case .cancelled: return "cancelled"
    case .uploadProgress: return "upload"
    case .downloadProgress: return "download"
    case .responseReceived(let head): return "head \(head.status)"
    case .retried(let retry): return "retried \(retry.attempt)"
    case .redirected(let hop): return "redirected \(hop.status)"
    case .coalesced(let shared): return shared.joined ? "joined" : "shared"
    case .cache(let outcome): return "cache \(outcome)"
    case .downloadRestarted(let reason): return "restarted \(reason)"
    case .completed(let completion):
        if let error = completion.error { return "completed \(error.code)" }
        return "completed \(completion.response?.status ?? 0)"
    }
}

extension EventLog {
    /// The kinds in order, progress events collapsed (their number depends on chunking).
    var names: [String] {
        var result: [String] = []
        for event in events.withLock({ $0 }) {
            let next = name(event.kind)
            if next == "download" || next == "upload", result.last == next { continue }
            result.append(next)
        }
        return result
    }
}

@Suite("Task events")
struct TaskEventTests {
    @Test func aSuccessfulRequestIsCreatedResumedAnsweredAndCompleted() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let log = EventLog(client)
            _ = try await client.get("bytes/100000").value
            try await eventually("completed") { log.names.last?.hasPrefix("completed") == true }
            #expect(log.names == ["created", "resumed", "head 200", "download", "completed 200"])
            let ids = Set(log.events.withLock { $0 }.map(\.taskID))
            #expect(ids.count == 1, "one task, one identifier")
            guard case .completed(let completion) = log.events.withLock({ $0 }).last?.kind else { return }
            #expect(completion.body?.count == 100_000)
            #expect(completion.metrics?.bytesReceived == 100_000)
        }
    }

    @Test func aFailureCompletesWithTheError() async throws {
        try await RefusedAddress.withBaseURL { base in
            let client = try Client(baseURL: base.absoluteString, transport: CurlTransport())
            let log = EventLog(client)
            _ = try? await client.get("echo").value
            try await eventually("completed") { log.names.last?.hasPrefix("completed") == true }
            #expect(log.names == ["created", "resumed", "completed cannotConnect"])
        }
    }

    @Test func aCancelledRequestEndsWithCancelled() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let log = EventLog(client)
            // A body trickled over 30 s, so the transfer is still running when it is disposed even
            // when this task is starved under load: over 5 s, a full parallel run once saw the head
            // only after the whole body (head, download, completed, and no cancel to make).
            let url = server.url(for: .drip(bytes: 1000, chunks: 100, interval: .milliseconds(300)))
            let disposable = client.get(url.absoluteString).start()
            try await eventually("the head arrives") { log.names.contains("head 200") }
            try #require(
                !log.names.contains { $0.hasPrefix("completed") }, "the transfer ended before it could be disposed")
            disposable.dispose()
            try await eventually("cancelled, after \(log.names)") { log.names.last == "cancelled" }
            #expect(log.names.first == "created")
            #expect(!log.names.contains { $0.hasPrefix("completed") })
        }
    }

    @Test func retriesAndRedirectsAppearInOrderBetweenTheHeads() async throws {
        try await withServer { server, transport in
            var configuration = Client.Configuration()
            configuration.retryPolicy = RetryPolicy(baseDelay: .zero)
            configuration.scheduler = QueueScheduler()
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            let log = EventLog(client)
            let flaky = server.url(for: .flaky(key: "events", failures: 1))
            _ = try await client.get(server.url(for: .redirect(status: 302, to: flaky)).absoluteString).value
            try await eventually("completed") { log.names.last?.hasPrefix("completed") == true }
            #expect(
                log.names.filter { $0 != "download" } == [
                    "created", "resumed", "head 302", "redirected 302", "head 503", "retried 2", "head 302",
                    "redirected 302", "head 200", "completed 200",
                ])
        }
    }

    @Test func theCompletedEventCarriesTheSerializedValueOrTheSerializersError() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let log = EventLog(client)
            let echo = try await client.get("echo").decode(EchoReply.self).value
            try await eventually("completed") { log.names.last?.hasPrefix("completed") == true }
            guard case .completed(let completion) = log.events.withLock({ $0 }).last?.kind else { return }
            #expect((completion.serializedValue as? EchoReply) == echo)

            _ = try? await client.get("bytes/10").decode(EchoReply.self).value
            try await eventually("the second completes") { log.names.count(where: { $0.hasPrefix("completed") }) == 2 }
            guard case .completed(let failed) = log.events.withLock({ $0 }).last?.kind else { return }
            #expect(failed.error?.code == .serializationFailed)
            #expect(failed.response?.status == 200)
        }
    }

    @Test func metricsArePlausibleAndTheSecondRequestReusesTheConnection() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let first = try await client.get("bytes/1000").value
            let second = try await client.get("bytes/1000").value
            let metrics = try #require(second.metrics)
            #expect(first.metrics?.reusedConnection == false)
            #expect(metrics.reusedConnection)
            #expect(metrics.total > .zero && metrics.timeToFirstByte <= metrics.total)
            #expect(metrics.bytesReceived == 1000)
            #expect(metrics.remoteAddress == "127.0.0.1:\(server.baseURL.port!)")
            let host = "127.0.0.1:\(server.baseURL.port!)"
            try await eventually("the aggregate counts both") { client.metrics.value.hosts[host]?.requestCount == 2 }
            let aggregate = try #require(client.metrics.value.hosts[host])
            #expect(aggregate.reusedConnectionCount == 1)
            #expect(aggregate.errorRate == 0)
            #expect(aggregate.bytesReceived == 2000)
            #expect(aggregate.latency.p50 > .zero && aggregate.latency.p50 <= aggregate.latency.max)
            _ = try await client.get("status/503").value
            try await eventually("the 503 counts as a failure") { client.metrics.value.hosts[host]?.requestCount == 3 }
            #expect(abs((client.metrics.value.hosts[host]?.errorRate ?? 0) - 1.0 / 3) < 0.001)
        }
    }
}

@Suite("Request tasks")
struct RequestTaskTests {
    @Test func aDownloadTaskReportsProgressAndWritesTheFile() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-task-\(UUID())")
            defer { try? FileManager.default.removeItem(at: file) }
            let task = try client.download("bytes/2000000", to: file)
            #expect(task.state.value == .created)
            #expect(server.recordedRequests.isEmpty, "nothing is sent before resume()")
            let fractions = Lock<[Double]>([])
            _ = task.downloadProgress.signal.observeValues { p in fractions.withLock { $0.append(p.fraction ?? 0) } }
            task.resume()
            let response = try await task.response.value
            #expect(response.fileURL == file)
            #expect(try Data(contentsOf: file) == MockServer.deterministicBytes(count: 2_000_000))
            #expect(task.state.value == .completed)
            #expect(task.downloadProgress.value.completed == 2_000_000)
            #expect(task.downloadProgress.value.fraction == 1)
            #expect(task.downloadProgress.value.bytesPerSecond > 0)
            let seen = fractions.withLock { $0 }
            #expect(seen == seen.sorted(), "progress only grows")
            // The outcome is replayed.
            #expect(try await task.response.value.status == 200)
        }
    }

    @Test func suspendAndResumeArePairedEvents() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let task = try client.task(.get, "drip", parameters: ["bytes": 4000, "chunks": 20, "interval": 200])
            let kinds = Lock<[String]>([])
            // Suspended as the head arrives, from the observer: a task polling for the head could be
            // held back, on a busy machine, until the whole drip had arrived.
            _ = task.events.observeValues { event in
                kinds.withLock { $0.append(name(event.kind)) }
                if case .responseReceived = event.kind { task.suspend() }
            }
            task.resume()
            try await eventually("the head arrives") { kinds.withLock { $0 }.contains("head 200") }
            #expect(task.state.value == .suspended)
            try await Task.sleep(for: .milliseconds(300))
            task.resume()
            let response = try await task.response.value
            #expect(response.body == MockServer.deterministicBytes(count: 4000))
            try await eventually("completed") { kinds.withLock { $0 }.last?.hasPrefix("completed") == true }
            let names = kinds.withLock { $0 }.filter { $0 != "download" }
            #expect(names == ["created", "resumed", "head 200", "suspended", "resumed", "completed 200"])
        }
    }

    @Test func cancellingATaskFailsItsResponseWithCancelled() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let task = try client.task(.get, "drip", parameters: ["bytes": 1000, "chunks": 10, "interval": 500])
            task.resume()
            try await eventually("running") { !server.recordedRequests.isEmpty }
            task.cancel()
            do throws(SluiceError) {
                _ = try await task.response.value
                Issue.record("cancelled")
            } catch {
                #expect(error.code == .cancelled)
            }
            #expect(task.state.value == .cancelled)
            let unstarted = try client.task(.get, "echo")
            unstarted.cancel()
            #expect(unstarted.state.value == .cancelled)
            #expect(server.requests(to: "/echo").isEmpty)
        }
    }
}
