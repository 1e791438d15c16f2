import Foundation
import Sluice
import SluiceTesting
import Testing

/// Every hostile case (`HostileCase.all`) over HTTP and over HTTPS (a MockServer with TLS on
/// certificates the tests make): the client ends each with the typed outcome the case names,
/// within 1.5 times the timeout that bounds it, and a request that must not be sent reaches no
/// server. `Docs/Reliability.md` lists the cases.
@Suite("Hostile input")
struct HostileInputTests {
    /// Shared by every run of the suite (see `RunSlots`).
    private static let slots = RunSlots(6)

    @Test(arguments: HostileRun.all)
    func endsAsItShould(_ run: HostileRun) async throws {
        try await Self.slots.run { try await Self.play(run) }
    }

    private static func play(_ run: HostileRun) async throws {
        let hostileCase = run.hostileCase
        let isTLS = run.scheme == .https
        let server = try await MockServer.start(tls: isTLS ? try await TestPKI.shared.serverTLS : nil)
        var stops: [@Sendable () -> Void] = []
        defer { for stop in stops { stop() } }
        var baseURL = server.baseURL.absoluteString
        switch hostileCase.server {
        case .wire(let steps):
            server.script(HostileCase.path, wire: steps)
        case .onAccept(let steps):
            let raw = try AcceptScriptServer(steps)
            stops.append { raw.stop() }
            baseURL = "\(run.scheme.rawValue)://127.0.0.1:\(raw.port)/"
        case .fullBacklog:
            let listener = try FullBacklogListener()
            stops.append { listener.stop() }
            baseURL = "\(run.scheme.rawValue)://127.0.0.1:\(listener.port)/"
        case .neverReached, .echo:
            break
        }
        var configuration = Client.Configuration()
        configuration.requestOptions = HostileCase.baseOptions()
        // The server's certificate is issued by the tests' own authority, trusted alone.
        if isTLS {
            configuration.requestOptions.tls.trustRoots = .only(pem: try await TestPKI.shared.authorityCertificate)
        }
        hostileCase.options(&configuration.requestOptions)
        let limit = hostileCase.limit(configuration.requestOptions)
        let client = try Client(baseURL: baseURL, configuration: configuration, transport: CurlTransport())

        // The end is taken where the request ends, on the transport's thread, not where the await
        // resumes: on a loaded machine the resumption can wait for a thread of the pool.
        let ended = Lock<ContinuousClock.Instant?>(nil)
        let noteEnd: @Sendable () -> Void = { ended.withLock { $0 = $0 ?? .now } }
        let started = ContinuousClock.now
        let result: Result<Response, SluiceError>
        do throws(SluiceError) {
            result = .success(
                try await hostileCase.send(client).on(value: { _ in noteEnd() }, terminated: noteEnd).value)
        } catch {
            result = .failure(error)
        }
        let elapsed = (ended.withLock { $0 } ?? ContinuousClock.now) - started
        if let knownIssue = hostileCase.knownIssue {
            withKnownIssue(Comment(rawValue: knownIssue)) {
                Self.check(hostileCase, result, elapsed: elapsed, limit: limit, server: server)
            }
        } else {
            Self.check(hostileCase, result, elapsed: elapsed, limit: limit, server: server)
        }
        try await server.shutdown()
    }

    /// Checks that the case ended as it should, in time.
    private static func check(
        _ hostileCase: HostileCase, _ result: Result<Response, SluiceError>, elapsed: Duration, limit: Duration,
        server: MockServer
    ) {
        #expect(elapsed <= limit * 1.5, "took \(elapsed), bounded by \(limit)")

        switch (hostileCase.outcome, result) {
        case (.fails(let code, let timeout, let naming), .failure(let error)):
            #expect(error.code == code, "\(error)")
            #expect(error.timeout == timeout, "\(error)")
            if let naming { #expect(error.message.contains(naming), "\(error)") }
            if timeout != nil { #expect(elapsed >= limit * 0.9, "a timeout of \(limit) fired after \(elapsed)") }
        case (.fails(let code, _, _), .success(let response)):
            Issue.record("expected \(code), got \(response.status) with \(response.body.count) body bytes")
        case (.succeeds(let status, let check), .success(let response)):
            #expect(response.status == status)
            #expect(
                check(response), "\(response.headers) \(String(decoding: response.body.prefix(200), as: UTF8.self))")
        case (.arrives(let check), .success):
            let arrived = server.recordedRequests
            #expect(arrived.count == 1 && arrived.allSatisfy(check), "\(arrived.map(\.target))")
        case (.succeeds, .failure(let error)), (.arrives, .failure(let error)):
            Issue.record("expected success, got \(error)")
        }
        if case .neverReached = hostileCase.server {
            #expect(server.recordedRequests.isEmpty, "a refused request reached the server")
            if hostileCase.group == .requests { #expect(server.connectionCount == 0, "a refused request connected") }
        }
    }

    /// The docs' table lists every case, so that a case added here is explained there.
    @Test func theDocsListEveryCase() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Docs/Reliability.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let missing = HostileCase.all.map(\.name).filter { !text.contains("`\($0)`") }
        #expect(missing.isEmpty, "Docs/Reliability.md does not list \(missing)")
        #expect(Set(HostileCase.all.map(\.name)).count == HostileCase.all.count, "two cases share a name")
        #expect(HostileRun.all.count >= 150)
    }
}
