import Foundation
import SluiceSignals
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

@Suite("Metrics aggregation by host")
struct MetricsAggregatorTests {
    private func response(_ url: String, status: Int = 200) -> Response {
        var metrics = TransferMetrics()
        metrics.bytesReceived = 10
        return Response(
            status: status, headers: [:], metrics: metrics, request: Request(url: URL(string: url)!))
    }

    @Test func requestsAreCountedPerHostWhateverTheOrderOfOrigins() {
        let scheduler = TestScheduler()
        let aggregator = MetricsAggregator(scheduler: scheduler, interval: .milliseconds(100))
        // Same origin in a row, another origin, back again, a port, a scheme's default port, a
        // host that merely starts like the previous one, and a query right after the authority.
        let urls = [
            "http://a.test/x", "http://a.test/y?q=1", "https://a.test/x", "http://a.test:80/z",
            "http://a.test.evil/x", "http://a.test?q=2", "http://b.test:8080/", "http://a.test#f",
        ]
        for url in urls {
            aggregator.record(response(url))
        }
        aggregator.recordFailure(url: URL(string: "http://b.test:8080/fail")!)
        scheduler.advance(by: .milliseconds(100))
        let hosts = aggregator.property.value.hosts
        #expect(hosts["a.test:80"]?.requestCount == 5)
        #expect(hosts["a.test:443"]?.requestCount == 1)
        #expect(hosts["a.test.evil:80"]?.requestCount == 1)
        #expect(hosts["b.test:8080"]?.requestCount == 2)
        #expect(hosts["b.test:8080"]?.failureCount == 1)
        #expect(hosts["a.test:80"]?.bytesReceived == 50)
        #expect(hosts.count == 4)
    }

    @Test func theOriginIsTheSchemeAndAuthority() {
        #expect(MetricsAggregator.origin(of: "http://a.test:81/x?y") == "http://a.test:81")
        #expect(MetricsAggregator.origin(of: "https://u@a.test") == "https://u@a.test")
        #expect(MetricsAggregator.origin(of: "http://[::1]:8080?q") == "http://[::1]:8080")
        #expect(MetricsAggregator.origin(of: "mailto:a@b.test") == nil)
        #expect(MetricsAggregator.hasOrigin("http://a.test/x", "http://a.test"))
        #expect(MetricsAggregator.hasOrigin("http://a.test", "http://a.test"))
        #expect(!MetricsAggregator.hasOrigin("http://a.test.evil/x", "http://a.test"))
        #expect(!MetricsAggregator.hasOrigin("http://a.tes", "http://a.test"))
    }

    @Test func theHTTPSCheckReadsTheSchemeInAnyCase() {
        #expect(EasyConfigurator.isHTTPS("https://a.test/"))
        #expect(EasyConfigurator.isHTTPS("HTTPS://a.test/"))
        #expect(EasyConfigurator.isHTTPS("HtTpS://a.test/"))
        #expect(!EasyConfigurator.isHTTPS("http://a.test/"))
        #expect(!EasyConfigurator.isHTTPS("https"))
        #expect(!EasyConfigurator.isHTTPS("httpsx://a.test/"))
    }
}
