import Foundation
import Sluice
import SluiceTesting
import Synchronization
import Testing

/// Identical GET and HEAD requests in flight at once share one transfer, when asked.
@Suite("Request coalescing")
struct CoalescingTests {
    private func client(_ server: MockServer, _ transport: CurlTransport, coalescing: Bool = true) throws -> Client {
        var configuration = Client.Configuration()
        configuration.coalescesRequests = coalescing
        return try Client(baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
    }

    @Test func identicalRequestsInFlightShareOneTransfer() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            let shared = Lock<[Int]>([])
            let watching = client.events.observeValues { event in
                if case .coalesced(let transfer) = event.kind { shared.withLock { $0.append(transfer.joined ? 1 : 0) } }
            }
            defer { watching.dispose() }
            let responses = try await withThrowingTaskGroup(of: Response.self) { group in
                for _ in 0..<3 { group.addTask { try await client.get("delay/300").value } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.map(\.status) == [200, 200, 200])
            #expect(Set(responses.map(\.body)).count == 1)
            #expect(server.requests(to: "/delay/300").count == 1)
            try await eventually("the events say who shared") { shared.withLock { $0.count } == 3 }
            #expect(shared.withLock { $0 }.sorted() == [0, 1, 1], "one request shares, two joined")
            // Once the response has arrived, the next request sends its own.
            _ = try await client.get("delay/300").value
            #expect(server.requests(to: "/delay/300").count == 2)
        }
    }

    @Test func differentHeadersMethodsOrAClientWithoutCoalescingSendTheirOwn() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            async let a = client.get("delay/200", headers: ["X-A": "1"]).value
            async let b = client.get("delay/200", headers: ["X-A": "2"]).value
            async let c = client.post("delay/200").value
            async let d = client.post("delay/200").value
            _ = try await (a, b, c, d)
            #expect(server.requests(to: "/delay/200").count == 4)

            let plain = try self.client(server, transport, coalescing: false)
            async let e = plain.get("delay/250").value
            async let f = plain.get("delay/250").value
            _ = try await (e, f)
            #expect(server.requests(to: "/delay/250").count == 2)
        }
    }

    @Test func oneLeavingDoesNotCancelTheOthers() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            let first = Mutex<Result<Response, SluiceError>?>(nil)
            let second = Mutex<Result<Response, SluiceError>?>(nil)
            // Six seconds: the second must join before the response arrives, and on a loaded machine
            // the wait below has resumed seconds late.
            let leader = client.get("delay/6000").startWithCompletion { result in first.withLock { $0 = result } }
            try await eventually("the transfer is in flight") { !server.requests(to: "/delay/6000").isEmpty }
            try #require(first.withLock { $0 } == nil, "the response arrived before the second could join")
            _ = client.get("delay/6000").startWithCompletion { result in second.withLock { $0 = result } }
            leader.dispose()
            try await eventually("the second gets its response", timeout: .seconds(20)) {
                second.withLock { $0 } != nil
            }
            #expect((try? second.withLock { $0 }?.get())?.status == 200)
            if case .failure(let error)? = first.withLock({ $0 }) {
                #expect(error.code == .cancelled)
            } else {
                Issue.record("the one that left was cancelled")
            }
            #expect(server.requests(to: "/delay/6000").count == 1)
        }
    }

    @Test func whenAllLeaveTheTransferIsCancelled() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            let a = client.get("delay/3000").start()
            try await eventually("the transfer is in flight") { !server.requests(to: "/delay/3000").isEmpty }
            let b = client.get("delay/3000").start()
            a.dispose()
            b.dispose()
            try await eventually("nothing is in flight") { client.inFlightCount == 0 }
            // A new identical request is not given the cancelled one.
            let response = try await client.get("delay/100").value
            #expect(response.status == 200)
        }
    }

    @Test func streamedRequestsAreNeverCoalesced() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            async let a = client.stream("delay/200").open()
            async let b = client.stream("delay/200").open()
            _ = try await (a, b)
            #expect(server.requests(to: "/delay/200").count == 2)
        }
    }
}
