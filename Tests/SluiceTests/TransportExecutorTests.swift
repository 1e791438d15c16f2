import Foundation
import SluiceSignals
import SluiceTesting
import Synchronization
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

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
            let slow = server.url(for: .delay(.milliseconds(300))).absoluteString
            let url = server.url(for: .bytes(1000)).absoluteString
            let outcomes = try await withTaskExecutorPreference(client.taskExecutor) {
                try await withThrowingTaskGroup(of: (connection: Int, sizes: [Int], threads: [UInt]).self) { group in
                    for _ in 0..<8 {
                        group.addTask {
                            // Each child's first request is slow: only requests in flight together
                            // need a connection each (one after the other, they would share one).
                            let echo = try await client.get(slow).validate().decode(EchoReply.self).value
                            var sizes: [Int] = []
                            var threads = [UInt(pthread_self())]
                            for _ in 0..<25 {
                                sizes.append(try await client.get(url).validate().data().value.count)
                                threads.append(UInt(pthread_self()))
                            }
                            return (echo.connectionID, sizes, threads)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            #expect(Set(outcomes.map(\.connection)).count == 8, "the eight slow requests were in flight at once")
            #expect(outcomes.flatMap(\.sizes) == Array(repeating: 1000, count: 200))
            #expect(outcomes.flatMap(\.threads).allSatisfy { $0 == loop })
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

    @Test(.timeLimit(.minutes(1)))
    func theExecutorKeepsTheLoopRunningAfterItsTransportIsGone() async throws {
        try await withServer { server in
            weak var weakTransport: CurlTransport?
            let (executor, loop) = try await { () async throws -> ((any TaskExecutor)?, UInt) in
                let transport = CurlTransport()
                weakTransport = transport
                let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
                return (transport.taskExecutor, try await loopThread(of: client, server))
            }()
            // The loop thread lets go of the request's objects (and through them the client and the
            // transport) just after it has resumed the awaiting task: wait for that, within bounds.
            try await eventually("the executor does not hold the transport", timeout: .seconds(5)) {
                weakTransport == nil
            }
            // A task made to prefer it owns it: its jobs still run on the loop thread.
            let threads = await Task(executorPreference: executor) {
                var threads: [UInt] = []
                for _ in 0..<20 {
                    try? await Task.sleep(for: .milliseconds(1))
                    threads.append(UInt(pthread_self()))
                }
                return threads
            }.value
            #expect(threads.count == 20 && threads.allSatisfy { $0 == loop })
        }
    }

    @Test func everyTransportHasOneExecutorAndAStubHasNone() throws {
        let stub = try Client(baseURL: "http://example.com/", transport: StubTransport(reply: .never))
        #expect(stub.taskExecutor == nil)
        let transport = CurlTransport()
        let client = try Client(baseURL: "http://example.com/", transport: transport)
        #expect(client.taskExecutor != nil)
        #expect(client.taskExecutor === transport.taskExecutor)
    }

    @Test(.timeLimit(.minutes(1)))
    func aLoopThatRefusesTransfersStillRunsJobsAndEndsWithItsLastHolder() async throws {
        // The loop of a transport whose multi handle could not be made (`CurlLoop.refuseAll`).
        let queue = CommandQueue()
        let end = LoopEnd()
        DetachedThread.start(name: "test.refusing") {
            CurlLoop.refuseAll(queue: queue, error: SluiceError(.transportFailure, "no multi handle"))
            end.markEnded()
        }
        var executor: LoopExecutor? = LoopExecutor(lifetime: LoopLifetime(queue: queue))
        let threads = await withTaskExecutorPreference(executor) {
            var threads: [UInt] = []
            for _ in 0..<20 {
                await Task.yield()
                threads.append(UInt(pthread_self()))
            }
            return threads
        }
        #expect(threads.count == 20 && Set(threads).count == 1, "every job ran on the refusing loop's thread")
        #expect(!end.hasEnded)
        // Its last holder gone, the lifetime tells the loop to shut down, and the loop ends.
        executor = nil
        await end.wait()
        #expect(end.hasEnded)
    }
}

/// Whether a loop's thread has returned, and a way to wait for it.
private final class LoopEnd: Sendable {
    private let state = Mutex<(ended: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    var hasEnded: Bool { state.withLock { $0.ended } }

    func markEnded() {
        state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.ended = true
            defer { s.waiter = nil }
            return s.waiter
        }?.resume()
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let ended = state.withLock { s -> Bool in
                if s.ended { return true }
                s.waiter = continuation
                return false
            }
            if ended { continuation.resume() }
        }
    }
}
