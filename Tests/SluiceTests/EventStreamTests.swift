import Foundation
import Sluice
import SluiceTesting
import Synchronization
import Testing

/// Server-Sent Events through a client against MockServer: reconnection with `Last-Event-ID`
/// and the server's `retry`, 204 to stop, refusals, disconnects and decoding.
@Suite("Event streams")
struct EventStreamTests {
    private static func events(_ text: String, status: Int = 200, type: String = "text/event-stream")
        -> ScriptedResponse
    {
        ScriptedResponse(status: status, headers: ["Content-Type": type], body: Data(text.utf8))
    }

    /// What a subscription received.
    private final class Received: Sendable {
        let events = Mutex<[ServerSentEvent]>([])
        let end = Mutex<Event<ServerSentEvent, SluiceError>?>(nil)
        var observer: @Sendable (Event<ServerSentEvent, SluiceError>) -> Void {
            { [self] event in
                if case .value(let value) = event {
                    events.withLock { $0.append(value) }
                } else {
                    end.withLock { $0 = event }
                }
            }
        }
        var data: [String] { events.withLock { $0.map(\.data) } }
        var failure: SluiceError? { if case .failed(let error)? = end.withLock({ $0 }) { error } else { nil } }
        var completed: Bool { if case .completed? = end.withLock({ $0 }) { true } else { false } }
    }

    private func client(_ server: MockServer, _ transport: CurlTransport, _ scheduler: TestScheduler) throws -> Client {
        var configuration = Client.Configuration()
        configuration.scheduler = scheduler
        return try Client(baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
    }

    @Test func reconnectsWithTheLastEventIDAfterTheServersRetryThenStopsOn204() async throws {
        try await withServer { server, transport in
            let scheduler = TestScheduler()
            let client = try client(server, transport, scheduler)
            server.script(
                "/feed", Self.events("retry: 1500\nid: 1\ndata: a\n\nid: 2\ndata: b\n\n"), Self.events("data: c\n\n"),
                ScriptedResponse(status: 204))
            let received = Received()
            let subscription = client.eventStream("feed").start(received.observer)
            defer { subscription.dispose() }
            try await eventually("the first events") { received.data == ["a", "b"] }
            try await eventually("a reconnection waits") { scheduler.pendingCount == 1 }
            scheduler.advance(by: .milliseconds(1499))
            #expect(server.requests(to: "/feed").count == 1, "the server's retry time is kept")
            scheduler.advance(by: .milliseconds(1))
            try await eventually("the second connection's event") { received.data == ["a", "b", "c"] }
            let second = try #require(server.requests(to: "/feed").last)
            #expect(second.headers["Last-Event-ID"] == "2")
            #expect(second.headers["Accept"] == "text/event-stream")
            #expect(received.events.withLock { $0.last?.id } == "2")
            try await eventually("another reconnection waits") { scheduler.pendingCount == 1 }
            scheduler.advance(by: .milliseconds(1500))
            try await eventually("204 ends the stream") { received.completed }
            #expect(server.requests(to: "/feed").count == 3)
        }
    }

    @Test func aWrongTypeOrStatusFailsWithoutReconnecting() async throws {
        try await withServer { server, transport in
            let scheduler = TestScheduler()
            let client = try client(server, transport, scheduler)
            server.script("/plain", Self.events("data: a\n\n", type: "text/plain"))
            server.script("/broken", Self.events("overloaded", status: 503, type: "text/plain"))
            let plain = Received()
            _ = client.eventStream("plain").start(plain.observer)
            try await eventually("the stream fails") { plain.failure != nil }
            #expect(plain.failure?.code == .unacceptableContentType)
            #expect(plain.data.isEmpty)
            let broken = Received()
            _ = client.eventStream("broken").start(broken.observer)
            try await eventually("the stream fails") { broken.failure != nil }
            #expect(broken.failure?.code == .unacceptableStatusCode)
            #expect(broken.failure?.responseBodyText == "overloaded")
            #expect(scheduler.pendingCount == 0)
            #expect(server.requests(to: "/plain").count == 1 && server.requests(to: "/broken").count == 1)
        }
    }

    @Test func aConnectionResetMidStreamReconnects() async throws {
        try await withServer { server, transport in
            let scheduler = TestScheduler()
            let client = try client(server, transport, scheduler)
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
            let first = "id: 9\ndata: first\n\n"
            let chunk = String(first.utf8.count, radix: 16) + "\r\n" + first + "\r\n"
            server.script("/live", wire: .text(head + chunk), .pause(.milliseconds(50)), .reset)
            let received = Received()
            let subscription = client.eventStream("live", reconnection: .init(delay: .seconds(2))).start(
                received.observer)
            defer { subscription.dispose() }
            try await eventually("the first event") { received.data == ["first"] }
            try await eventually("a reconnection waits") { scheduler.pendingCount == 1 }
            server.script(
                "/live",
                wire: .text(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 14\r\n\r\ndata: second\n\n"),
                .stall)
            scheduler.advance(by: .seconds(2))
            try await eventually("the event after the reset") { received.data == ["first", "second"] }
            #expect(server.requests(to: "/live").last?.headers["Last-Event-ID"] == "9")
            #expect(received.failure == nil)
        }
    }

    @Test func failedConnectionsBackOffAndEndTheStreamAtTheLimit() async throws {
        let scheduler = TestScheduler()
        var configuration = Client.Configuration()
        configuration.scheduler = scheduler
        // Connecting is refused at once, every time, and no other test's server can take the port
        // meanwhile (one did, once, under load).
        try await RefusedAddress.withBaseURL { base in
            let client = try Client(baseURL: base.absoluteString, configuration: configuration)
            let received = Received()
            let reconnection = EventStreamReconnection(
                delay: .seconds(1), maximumDelay: .seconds(3), maximumFailures: 3)
            _ = client.eventStream("feed", reconnection: reconnection).start(received.observer)
            try await eventually("the first wait") { scheduler.pendingCount == 1 }
            scheduler.advance(by: .milliseconds(999))
            #expect(scheduler.pendingCount == 1)
            scheduler.advance(by: .milliseconds(1))  // connection 2 fails: then 2 s
            try await eventually("the second wait") { scheduler.pendingCount == 1 }
            scheduler.advance(by: .seconds(2))  // connection 3 fails: the limit
            try await eventually("the stream fails") { received.failure != nil }
            #expect(received.failure?.code == .cannotConnect)
        }
    }

    @Test func mockServersEventRouteResumesAfterTheLastEventIDAndStops() async throws {
        struct Tick: Decodable, Equatable { let n: Int }
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let url = server.url(for: .events(count: 3, interval: .milliseconds(20))).absoluteString
            let ticks = try await client.eventStream(url).decode(Tick.self).collect().value
            #expect(ticks.map(\.n) == [1, 2, 3])
            let requests = server.requests(to: "/events")
            #expect(requests.count == 2, "the reconnection after the last event got 204")
            #expect(requests.last?.headers["Last-Event-ID"] == "3")
        }
    }

    @Test func eventsDecodeAsJSON() async throws {
        struct Token: Decodable, Equatable { let text: String }
        try await withServer { server, transport in
            let client = try client(server, transport, TestScheduler())
            server.script(
                "/tokens", Self.events("data: {\"text\":\"Hel\"}\n\ndata: {\"text\":\"lo\"}\n\ndata: [DONE]\n\n"))
            let tokens = try await client.eventStream("tokens", reconnection: .never)
                .filter { $0.data != "[DONE]" }.decode(Token.self).collect().value
            #expect(tokens == [Token(text: "Hel"), Token(text: "lo")])
        }
    }
}
