import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Synchronization
import Testing

@Suite("CurlTransport failures, timeouts and limits")
struct CurlTransportFailureTests {
    private func options(idle: Duration = .seconds(5), total: Duration? = nil) -> RequestOptions {
        var options = RequestOptions()
        options.idleTimeout = idle
        options.timeout = total
        return options
    }

    /// A transfer that waits for a connection (the host's limit is reached) is not idle: it
    /// failed with an idle timeout once, behind a long transfer that held the only connection.
    @Test func aTransferWaitingForAConnectionIsNotIdle() async throws {
        try await withServer { server, _ in
            let transport = CurlTransport(configuration: .init(maximumConnectionsPerHost: 1))
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            // ~1.5 s of body, a chunk every 250 ms, on the host's only connection.
            let drip = server.url(for: .drip(bytes: 600, chunks: 6, interval: .milliseconds(250)))
            let slow = Task { try await client.get(drip.absoluteString).value }
            // The slow request holds the connection before the other one is made.
            try await eventually("the slow request reaches the server") { server.requests(to: drip.path).count == 1 }
            var queued = try client.makeRequest(.get, "status/204")
            queued.options.idleTimeout = .milliseconds(400)
            let response = try await client.send(queued).value
            #expect(response.status == 204)
            #expect(try await slow.value.body.count == 600)
            #expect(server.connectionCount == 1)
        }
    }

    @Test func eachFaultEndsWithItsTypedError() async throws {
        try await withServer { server, transport in
            let quick = options(idle: .milliseconds(800))
            await expectFailure(.connectionLost) {
                try await transport.send(server.url(for: .fault(.closeBeforeHeaders)), options: quick)
            }
            await expectFailure(.connectionLost) {
                try await transport.send(server.url(for: .fault(.resetMidBody)), options: quick)
            }
            await expectFailure(.connectionLost) {
                try await transport.send(server.url(for: .fault(.shortBody)), options: quick)
            }
            await expectFailure(.connectionLost) {
                try await transport.send(server.url(for: .fault(.closeAfterHeaders)), options: quick)
            }
            await expectFailure(.protocolError) {
                try await transport.send(server.url(for: .fault(.malformedStatusLine)), options: quick)
            }
            let idle = await expectFailure(.timedOut) {
                try await transport.send(server.url(for: .fault(.neverRespond)), options: quick)
            }
            #expect(idle?.timeout == .idle)
        }
    }

    @Test func headerAndBodyCapsStopHostileServers() async throws {
        try await withServer { server, transport in
            var small = options()
            small.maximumHeaderSize = 16 * 1024
            await expectFailure(.headersTooLarge) {
                try await transport.send(server.url(for: .fault(.hugeHeaders(bytes: 1 << 20))), options: small)
            }
            small.maximumBodySize = 1 << 20
            await expectFailure(.responseTooLarge) {
                try await transport.send(server.url(for: .fault(.endlessBody)), options: small)
            }
            // A gzip bomb is counted by what it decodes to.
            await expectFailure(.responseTooLarge) {
                try await transport.send(server.url(for: .gzipBomb(decodedBytes: 64 << 20)), options: small)
            }
            await expectFailure(.responseTooLarge) {
                try await transport.send(server.url(for: .bytes(2 << 20)), options: small)
            }
            let fits = try await transport.send(server.url(for: .bytes(1 << 20)), options: small)
            #expect(fits.body.count == 1 << 20)
        }
    }

    @Test func totalTimeout() async throws {
        try await withServer { server, transport in
            let error = await expectFailure(.timedOut) {
                try await transport.send(
                    server.url(for: .delay(.seconds(3))), options: options(total: .milliseconds(300)))
            }
            #expect(error?.timeout == .total)
        }
    }

    @Test func theIdleTimeoutSparesASlowTransferThatKeepsMoving() async throws {
        try await withServer { server, transport in
            // Sixteen chunks 200 ms apart take over 3 s, twice the 1.5 s idle timeout; the gaps leave
            // a wide margin for a busy machine.
            let response = try await transport.send(
                server.url(for: .drip(bytes: 1_600, chunks: 16, interval: .milliseconds(200))),
                options: options(idle: .milliseconds(1_500)))
            #expect(response.body.count == 1_600)
        }
    }

    @Test func connectTimeout() async throws {
        // A listening socket whose backlog is full drops new SYNs, so connecting times out.
        let listener = try BacklogFullListener()
        defer { listener.close() }
        var options = RequestOptions()
        options.connectTimeout = .milliseconds(300)
        let transport = CurlTransport()
        let error = await expectFailure(.timedOut) {
            try await transport.send(URL(string: "http://127.0.0.1:\(listener.port)/")!, options: options)
        }
        #expect(error?.timeout == .connect)
    }

    @Test func cannotConnectToAClosedPort() async throws {
        // Refused, and no other test's server can take the port meanwhile.
        try await RefusedAddress.withBaseURL { base in
            await expectFailure(.cannotConnect) { try await CurlTransport().send(base) }
        }
    }

    @Test func cancellingMidBodyInterruptsOnceAndNothingFollows() async throws {
        try await withServer { server, transport in
            let request = try Request(
                url: server.url(for: .drip(bytes: 10_000, chunks: 200, interval: .milliseconds(50)))
            ).prepared()
            let recorder = TransferRecorder()
            let disposable = transport.transfer(request).start(recorder.observer)
            try await eventually("the first body bytes arrive") { recorder.bodyBytes > 0 }
            disposable.dispose()
            // The loop thread may be delivering a chunk right now; `interrupted` follows it.
            try await eventually("the transfer ends") { recorder.terminal != nil }
            let countAtCancel = recorder.events.count
            #expect(recorder.terminal?.isInterrupted == true)
            try await Task.sleep(for: .milliseconds(300))
            #expect(recorder.events.count == countAtCancel)
            #expect(recorder.events.filter(\.isTerminating).count == 1)
        }
    }

    @Test func suspendAndResume() async throws {
        try await withServer { server, transport in
            let idle = Duration.seconds(1)
            // A body the server sends as fast as it is read, much larger than what the loop reads
            // in one round: unread bytes wait in the socket for the whole suspension, and no pause in
            // the server's sending can look like a stall.
            let size = 16 << 20
            let request = try Request(url: server.url(for: .bytes(size)), options: options(idle: idle)).prepared()
            let control = TransferControl()
            let recorder = TransferRecorder()
            let record = recorder.observer
            let suspendedOnce = Atomic(false)
            transport.transfer(request, control: control).start(
                Observer { event in
                    // Suspended on the loop thread as the first chunk arrives (before it is
                    // recorded), however late this test's task gets to run.
                    if case .value(.body) = event, !suspendedOnce.exchange(true, ordering: .relaxed) {
                        control.suspend()
                    }
                    record.send(event)
                })
            try await eventually("the first body bytes arrive", timeout: .seconds(30)) { recorder.bodyBytes > 0 }
            // The loop handles commands in order: a request sent after the suspension is answered
            // only once the pause is in effect, so no byte arrives after this count.
            try await loopHasHandledEarlierCommands(transport, server)
            let bytesWhenSuspended = recorder.bodyBytes
            #expect(bytesWhenSuspended < size, "suspended only after \(bytesWhenSuspended) of \(size) bytes")
            #expect(recorder.terminal == nil, "\(String(describing: recorder.terminal))")
            // Suspended for twice the idle timeout: it must not fire, and no bytes arrive. The request
            // after the wait has the loop go round, checking for idle transfers, after the wait.
            try await Task.sleep(for: idle * 2)
            try await loopHasHandledEarlierCommands(transport, server)
            #expect(recorder.bodyBytes == bytesWhenSuspended)
            #expect(recorder.terminal == nil, "\(String(describing: recorder.terminal))")
            control.resume()
            try await eventually("the transfer ends", timeout: .seconds(30)) { recorder.terminal != nil }
            #expect(recorder.bodyBytes == size)
            #expect(recorder.terminal?.isCompleted == true, "\(String(describing: recorder.terminal))")
        }
    }

    /// Returns once `transport`'s loop has handled every command sent before the call (its commands
    /// are handled in order, and a request's response comes after its start command was handled).
    private func loopHasHandledEarlierCommands(_ transport: CurlTransport, _ server: MockServer) async throws {
        _ = try await transport.send(server.url(for: .echo))
    }

    @Test func aPostIsNeverSentTwice() async throws {
        try await withServer { server, transport in
            // Warm a keep-alive connection, then send a POST on it that the server reads and drops
            // unanswered. libcurl retries requests that die on a reused connection; for a POST,
            // Sluice refuses to rewind the body, so the server sees it exactly once.
            _ = try await transport.send(server.url(for: .echo))
            let fault = server.url(for: .fault(.closeBeforeHeaders))
            await expectFailure(.connectionLost) {
                try await transport.send(.post, fault, body: .data(Data("once".utf8)))
            }
            #expect(server.requests(to: fault.path).count == 1)
            // An idempotent GET may be replayed on a fresh connection: that is allowed, and safe.
            _ = try? await transport.send(.get, fault)
        }
    }
}

/// A TCP listener on 127.0.0.1 that never accepts, with its backlog filled, so further connection
/// attempts hang in SYN-SENT until the client's connect timeout.
final class BacklogFullListener {
    let port: Int
    private var descriptors: [Int32] = []

    init() throws {
        let (listener, port) = try LoopbackSocket.listen(backlog: 0)
        self.port = port
        descriptors.append(listener)
        // Fill the accept queue with connections nobody accepts.
        for _ in 0..<4 {
            if let client = LoopbackSocket.connect(to: port, nonBlocking: true) { descriptors.append(client) }
        }
        usleep(50_000)
    }

    func close() {
        for descriptor in descriptors { Glibc.close(descriptor) }
        descriptors.removeAll()
    }
}

@Suite("CurlTransport handle reuse")
struct CurlTransportHandleReuseTests {
    @Test func aTransferCancelledWhileSuspendedLeavesNoPauseBehind() async throws {
        try await withServer { server, transport in
            let control = TransferControl()
            let request = try Request(
                url: server.url(for: .drip(bytes: 1_000, chunks: 50, interval: .milliseconds(50)))
            ).prepared()
            let recorder = TransferRecorder()
            let disposable = transport.transfer(request, control: control).start(recorder.observer)
            try await eventually("the first body bytes arrive") { recorder.bodyBytes > 0 }
            control.suspend()
            try await Task.sleep(for: .milliseconds(50))
            disposable.dispose()
            // Every later transfer, whatever handle it gets, runs to the end.
            for _ in 0..<5 {
                var options = RequestOptions()
                options.idleTimeout = .seconds(3)
                let response = try await transport.send(server.url(for: .bytes(10_000)), options: options)
                #expect(response.body.count == 10_000)
            }
        }
    }

    @Test func methodsDoNotLeakIntoTheNextRequestOnAReusedHandle() async throws {
        try await withServer { server, transport in
            let sequence: [HTTPMethod] = [.head, .get, .post, .get, .put, .delete, .get, .patch, .head, .options, .get]
            for method in sequence {
                let response = try await transport.send(
                    method, server.url(for: .echo), body: method == .get ? .empty : .data(Data("x".utf8)))
                let recorded = try #require(server.recordedRequests.last)
                #expect(recorded.method == method.rawValue)
                if method == .head {
                    #expect(response.body.isEmpty)
                } else {
                    #expect(!response.body.isEmpty)
                }
                if method == .get { #expect(recorded.bodyLength == 0) }
            }
        }
    }
}
