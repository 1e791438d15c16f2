import Foundation
import Sluice
import SluiceSignals
import SluiceTesting
import Synchronization
import Testing

/// The thread a request's observer runs on: the transport's loop thread.
private func loopThread(of client: Client, _ server: MockServer) async throws -> UInt {
    let thread = Mutex<UInt?>(nil)
    _ = try await client.get(server.url(for: .bytes(1)).absoluteString)
        .on(value: { _ in thread.withLock { $0 = UInt(pthread_self()) } })
        .value
    return try #require(thread.withLock { $0 })
}

@Suite("A transport's task executor")
struct TransportExecutorTests {
    @Test func awaitedRequestsResumeOnTheLoopThreadInATaskThatPrefersIt() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let loop = try await loopThread(of: client, server)
            let echo = server.url(for: .echo).absoluteString
            let threads = try await withTaskExecutorPreference(client.taskExecutor) {
                var threads: [UInt] = [UInt(pthread_self())]
                for index in 0..<20 {
                    let data = try await client.get(echo, parameters: ["n": .int(index)]).validate().data().value
                    let reply = try JSONDecoder().decode(EchoReply.self, from: data)
                    #expect(reply.queryItems["n"] == [String(index)])
                    threads.append(UInt(pthread_self()))
                    // `decode` moves to the serialization queue; the task comes back to the loop.
                    let decoded = try await client.get(echo).validate().decode(EchoReply.self).value
                    #expect(decoded.method == "GET")
                    threads.append(UInt(pthread_self()))
                }
                return threads
            }
            #expect(threads.allSatisfy { $0 == loop }, "every step of the task ran on the loop thread")
            // Without the preference, the same code runs on the global executor's threads.
            let elsewhere = try await Task.detached {
                _ = try await client.get(echo).validate().data().value
                return UInt(pthread_self())
            }.value
            #expect(elsewhere != loop)
        }
    }

    @Test func childTasksThatPreferItKeepManyRequestsInFlight() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let loop = try await loopThread(of: client, server)
            let url = server.url(for: .bytes(1000)).absoluteString
            let outcomes = try await withTaskExecutorPreference(client.taskExecutor) {
                try await withThrowingTaskGroup(of: [(Int, UInt)].self) { group in
                    for _ in 0..<8 {
                        group.addTask {
                            var outcomes: [(Int, UInt)] = []
                            for _ in 0..<25 {
                                let data = try await client.get(url).validate().data().value
                                outcomes.append((data.count, UInt(pthread_self())))
                            }
                            return outcomes
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
            }
            #expect(outcomes.count == 200)
            #expect(outcomes.allSatisfy { $0.0 == 1000 && $0.1 == loop })
        }
    }

    @Test func cancellingATaskThatPrefersItCancelsItsRequestAndTheLoopGoesOn() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let slow = server.url(for: .delay(.seconds(30))).absoluteString
            let started = ContinuousClock.now
            let task = Task(executorPreference: client.taskExecutor) {
                try await client.get(slow).validate().data().value
            }
            try await Task.sleep(for: .milliseconds(200))
            task.cancel()
            do {
                let data = try await task.value
                Issue.record("a cancelled request returned \(data.count) bytes")
            } catch let error as SluiceError {
                #expect(error.code == .cancelled, "\(error)")
            }
            #expect(ContinuousClock.now - started < .seconds(10))
            let after = try await withTaskExecutorPreference(client.taskExecutor) {
                try await client.get(server.url(for: .bytes(10)).absoluteString).validate().data().value
            }
            #expect(after.count == 10)
        }
    }

    @Test func theExecutorKeepsItsTransportAliveUntilItIsReleased() async throws {
        weak var weakTransport: CurlTransport?
        var executor: (any TaskExecutor)?
        do {
            let transport = CurlTransport()
            weakTransport = transport
            executor = transport.taskExecutor
        }
        #expect(weakTransport != nil, "a task executor holds its transport")
        let steps = await withTaskExecutorPreference(executor) {
            var steps = 0
            for _ in 0..<100 {
                await Task.yield()
                steps += 1
            }
            return steps
        }
        #expect(steps == 100)
        executor = nil
        #expect(weakTransport == nil, "the transport goes with its last executor")
    }

    @Test func aTransportWithoutALoopHasNoExecutor() throws {
        let client = try Client(baseURL: "http://example.com/", transport: StubTransport(reply: .never))
        #expect(client.taskExecutor == nil)
        #expect(try Client(baseURL: "http://example.com/").taskExecutor != nil)
    }
}
