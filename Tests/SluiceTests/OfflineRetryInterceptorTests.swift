import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Synchronization
import Testing

@Suite("Offline retry interceptor")
struct OfflineRetryInterceptorTests {
    /// A port on 127.0.0.1 where nothing listens (yet).
    func freePort() async throws -> Int {
        try await withServer { probe in probe.baseURL.port! }
    }

    @Test func aRequestThatFailedOfflineIsSentAgainWhenTheNetworkReturns() async throws {
        let port = try await freePort()
        let status = MutableProperty(ReachabilityStatus.unreachable)
        let client = try Client(
            baseURL: "http://127.0.0.1:\(port)/", interceptors: [OfflineRetryInterceptor(status: status.readOnly)],
            transport: CurlTransport())
        let log = EventLog(client)
        let result = Lock<Result<Response, SluiceError>?>(nil)
        _ = client.post("echo", json: ["note": "written offline"]).startWithResult { r in result.withLock { $0 = r } }
        try await eventually("the first attempt failed and the request waits") {
            log.retries.isEmpty && log.names.contains("created")
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(result.withLock { $0 } == nil, "held while the network is down")

        // The network comes back: the server is there now, and reachability says so.
        try await withServer(port: port) { server in
            status.value = .reachable(via: .loopback)
            try await eventually("the retried request completes") { result.withLock { $0 } != nil }
            let response = try #require(try result.withLock { $0 }?.get())
            #expect(response.status == 200)
            #expect(server.requests(to: "/echo").count == 1)
            #expect(log.retries.count == 1)
            if case .error(let error) = log.retries.first?.reason { #expect(error.code == .cannotConnect) }
        }
    }

    @Test func whenTheNetworkIsReachableTheErrorIsPassedOnAtOnce() async throws {
        let port = try await freePort()
        let status = MutableProperty(ReachabilityStatus.reachable(via: .ethernet))
        let client = try Client(
            baseURL: "http://127.0.0.1:\(port)/", interceptors: [OfflineRetryInterceptor(status: status.readOnly)],
            transport: CurlTransport())
        do throws(SluiceError) {
            _ = try await client.get("echo").value
            Issue.record("fails")
        } catch {
            #expect(error.code == .cannotConnect)
        }
    }

    @Test func aRequestWaitsAtMostMaxWaitThenFailsWithItsError() async throws {
        let port = try await freePort()
        let scheduler = TestScheduler()
        var configuration = Client.Configuration()
        configuration.scheduler = scheduler
        let status = MutableProperty(ReachabilityStatus.unreachable)
        let client = try Client(
            baseURL: "http://127.0.0.1:\(port)/", configuration: configuration,
            interceptors: [OfflineRetryInterceptor(status: status.readOnly, maxWait: .seconds(30))],
            transport: CurlTransport())
        let result = Lock<Result<Response, SluiceError>?>(nil)
        _ = client.get("echo").startWithResult { r in result.withLock { $0 = r } }
        try await eventually("waiting for the network") { scheduler.pendingCount == 1 }
        scheduler.advance(by: .seconds(29))
        #expect(result.withLock { $0 } == nil)
        scheduler.advance(by: .seconds(1))
        try await eventually("gave up") { result.withLock { $0 } != nil }
        guard case .failure(let error) = result.withLock({ $0 }) else {
            Issue.record("fails")
            return
        }
        #expect(error.code == .cannotConnect)
    }
}

@Suite("Client reachability")
struct ClientReachabilityTests {
    @Test func theClientWatchesItsBaseURLsHost() async throws {
        let client = try Client(baseURL: "http://127.0.0.1:9/api/", transport: StubTransport(reply: .never))
        #expect(client.reachability.host == "127.0.0.1")
        #expect(client.reachability === client.reachability, "made once")
        let status = Lock<ReachabilityStatus?>(nil)
        let watching = client.reachability.whenReachable().startWithValues { s in status.withLock { $0 = s } }
        defer { watching.dispose() }
        try await eventually("loopback is reachable") { status.withLock { $0 } != nil }
        #expect(status.withLock { $0 } == .reachable(via: .loopback))
        #expect(try Client(transport: StubTransport(reply: .never)).reachability === Reachability.shared)
    }
}
