import Foundation
import Metrics
import MetricsTestKit
import Sluice
import SluiceMetrics
import SluiceTesting
import Testing

@Suite struct MetricsInterceptorTests {
    @Test func requestsLatencyAndBytesAreCountedPerHost() async throws {
        try await withServer { server, transport in
            let metrics = TestMetrics()
            let client = try Client(interceptors: [MetricsInterceptor(factory: metrics)], transport: transport)
            _ = try await client.get(server.url(for: .bytes(1000)).absoluteString).value
            _ = try await client.post(
                server.url(for: .echo).absoluteString, modify: { $0.body = .data(Data(count: 300)) }
            ).value

            let host = [("server.address", server.host)]
            #expect(try metrics.expectCounter("sluice.requests", host).totalValue == 2)
            #expect(try metrics.expectCounter("sluice.bytes.sent", host).totalValue == 300)
            #expect(try metrics.expectCounter("sluice.bytes.received", host).totalValue >= 1300)
            let timer = try metrics.expectTimer("sluice.request.duration", host)
            #expect(timer.values.count == 2)
            #expect(timer.values.allSatisfy { $0 > 0 })
            #expect(metrics.counters(label: "sluice.errors").isEmpty)
        }
    }

    @Test func errorsAreCountedByStatusAndByCode() async throws {
        try await withServer { server, transport in
            let metrics = TestMetrics()
            let client = try Client(interceptors: [MetricsInterceptor(factory: metrics)], transport: transport)
            _ = try await client.get(server.url(for: .status(503)).absoluteString).value
            _ = try await client.get(server.url(for: .status(503)).absoluteString).value
            let gone = try await RefusedAddress.withBaseURL { gone in
                await #expect(throws: SluiceError.self) { try await client.get(gone.absoluteString).value }
                return gone
            }

            let byStatus = [("server.address", server.host), ("error.type", "503")]
            #expect(try metrics.expectCounter("sluice.errors", byStatus).totalValue == 2)
            let byCode = [("server.address", gone.host!), ("error.type", "cannotConnect")]
            #expect(try metrics.expectCounter("sluice.errors", byCode).totalValue == 1)
            #expect(metrics.counterTotal(label: "sluice.requests") == 3)
        }
    }

    @Test func aRequestThroughRetriesAndRedirectsCountsOnce() async throws {
        try await withServer { server, transport in
            let metrics = TestMetrics()
            var configuration = Client.Configuration()
            configuration.retryPolicy = RetryPolicy(baseDelay: .zero, jitter: .none)
            let client = try Client(
                configuration: configuration, interceptors: [MetricsInterceptor(factory: metrics)], transport: transport
            )
            _ = try await client.get(server.url(for: .flaky(key: "metrics", failures: 1)).absoluteString).value
            _ = try await client.get(server.url(for: .redirectChain(count: 2)).absoluteString).value
            #expect(metrics.counterTotal(label: "sluice.requests") == 2)
            #expect(metrics.counters(label: "sluice.errors").isEmpty)
        }
    }

    @Test func aRequestLeftBeforeItsResponseCountsAsCancelledOnce() async throws {
        try await withServer { server, transport in
            let metrics = TestMetrics()
            let client = try Client(interceptors: [MetricsInterceptor(factory: metrics)], transport: transport)
            // Started and left at once: the subscription ends before any response, and the chain
            // may send nothing more.
            client.get(server.url(for: .delay(.seconds(3))).absoluteString).start().dispose()
            let host = [("server.address", server.host)]
            #expect(try metrics.expectCounter("sluice.requests", host).totalValue == 1)
            let cancelled = [("server.address", server.host), ("error.type", "cancelled")]
            #expect(try metrics.expectCounter("sluice.errors", cancelled).totalValue == 1)
            #expect((try? metrics.expectTimer("sluice.request.duration", host)) == nil)
        }
    }

    @Test func withoutABackendRequestsPassUnchanged() async throws {
        try await withServer { server, transport in
            #expect(MetricsSystem.factory is NOOPMetricsHandler)
            let client = try Client(interceptors: [MetricsInterceptor()], transport: transport)
            #expect(try await client.get(server.url(for: .echo).absoluteString).value.status == 200)
        }
    }
}
