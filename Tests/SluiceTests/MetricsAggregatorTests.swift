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

    @Test func theValueIsCurrentWhenReadAndChangesGoOnlyToObservers() {
        let scheduler = TestScheduler()
        let aggregator = MetricsAggregator(scheduler: scheduler, interval: .milliseconds(100))
        aggregator.record(response("http://a.test/1"))
        // Read at once, without waiting for the interval; nobody observes, so nothing is scheduled.
        #expect(aggregator.property.value.hosts["a.test:80"]?.requestCount == 1)
        #expect(scheduler.pendingCount == 0)

        let sent = Lock<[Int]>([])
        let observation = aggregator.property.producer.startWithValues { metrics in
            sent.withLock { $0.append(metrics.hosts["a.test:80"]?.requestCount ?? 0) }
        }
        // The producer starts with the figures as they are, and its coming schedules a summary.
        #expect(sent.withLock { $0 } == [1])
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: .milliseconds(100))
        #expect(sent.withLock { $0 } == [1, 1])

        // Two requests within an interval: one summary for both, after it; then one more.
        aggregator.record(response("http://a.test/2"))
        aggregator.record(response("http://a.test/3"))
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: .milliseconds(100))
        #expect(sent.withLock { $0 } == [1, 1, 3])
        aggregator.record(response("http://a.test/4"))
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: .milliseconds(100))
        #expect(sent.withLock { $0 } == [1, 1, 3, 4])

        observation.dispose()
        aggregator.record(response("http://a.test/5"))
        #expect(scheduler.pendingCount == 0)
        #expect(aggregator.property.value.hosts["a.test:80"]?.requestCount == 5)
    }

    @Test func anObserverOfTheSignalGetsASummaryMadeAfterItCame() {
        let scheduler = TestScheduler()
        let aggregator = MetricsAggregator(scheduler: scheduler, interval: .milliseconds(100))
        // Recorded while nobody watched: no summary was due when the observer came.
        aggregator.record(response("http://a.test/1"))
        let sent = Lock<[Int]>([])
        let first = aggregator.property.signal.observeValues { metrics in
            sent.withLock { $0.append(metrics.requestCount) }
        }
        let second = aggregator.property.signal.observeValues { _ in }
        scheduler.advance(by: .milliseconds(100))
        #expect(sent.withLock { $0 } == [1])
        // One observer leaves; the other still gets the changes.
        second.dispose()
        aggregator.record(response("http://b.test/1"))
        scheduler.advance(by: .milliseconds(100))
        #expect(sent.withLock { $0 } == [1, 2])
        first.dispose()
    }

    @Test func theChangesEndWhenTheAggregatorGoes() {
        let scheduler = TestScheduler()
        var aggregator: MetricsAggregator? = MetricsAggregator(scheduler: scheduler, interval: .milliseconds(100))
        let ended = Lock(false)
        let signal = aggregator!.property.signal
        signal.observeCompleted { ended.withLock { $0 = true } }
        // The summary its observer's coming scheduled holds it until it is made.
        scheduler.advance(by: .milliseconds(100))
        aggregator = nil
        #expect(ended.withLock { $0 })
    }

    @Test func latencyPercentilesComeFromTheRecordedTotals() {
        let aggregator = MetricsAggregator(scheduler: TestScheduler(), interval: .milliseconds(100))
        for milliseconds in 1...100 {
            var metrics = TransferMetrics()
            metrics.total = .milliseconds(milliseconds)
            aggregator.record(
                Response(
                    status: 200, headers: [:], metrics: metrics, request: Request(url: URL(string: "http://a.test")!)))
        }
        let latency = aggregator.property.value.hosts["a.test:80"]?.latency
        #expect(latency?.p50 == .milliseconds(50))
        #expect(latency?.p99 == .milliseconds(99))
        #expect(latency?.max == .milliseconds(100))
    }

    @Test func timesAreKeptToTheMicrosecondAsLibcurlMeasuresThem() {
        var metrics = TransferMetrics()
        metrics.total = .nanoseconds(1_234_567)
        metrics.connect = .seconds(3)
        #expect(metrics.total == .microseconds(1_234))
        #expect(metrics.connect == .seconds(3))
        #expect(metrics.nameLookup == .zero)
        // Truncated toward zero, below zero too.
        metrics.tlsHandshake = .nanoseconds(-1_999)
        #expect(metrics.tlsHandshake == .microseconds(-1))
        metrics.redirect = .seconds(-5)
        #expect(metrics.redirect == .seconds(-5))
        // Beyond what 64 bits of microseconds hold, the largest or smallest time, not a trap (the
        // last two have more seconds than 64 bits hold).
        metrics.timeToFirstByte = .seconds(Int64.max)
        #expect(metrics.timeToFirstByte == .microseconds(Int64.max))
        metrics.timeToFirstByte = .seconds(Int64.min)
        #expect(metrics.timeToFirstByte == .microseconds(Int64.min))
        metrics.timeToFirstByte = .seconds(Int64.max) * 2
        #expect(metrics.timeToFirstByte == .microseconds(Int64.max))
        metrics.timeToFirstByte = .seconds(Int64.min) * 2
        #expect(metrics.timeToFirstByte == .microseconds(Int64.min))
        // Times less than a microsecond apart are the same time.
        var other = metrics
        other.total = .nanoseconds(1_234_999)
        #expect(other == metrics)
    }

    @Test func aProgressIntervalOfAnyLengthConvertsWithoutATrap() {
        #expect(TransferContext.nanoseconds(.milliseconds(5)) == 5_000_000)
        #expect(TransferContext.nanoseconds(.seconds(-1)) == 0)
        #expect(TransferContext.nanoseconds(.seconds(Int64.max) * 2) == Int64.max)
        #expect(TransferContext.nanoseconds(.seconds(Int64.min) * 2) == 0)
    }

    @Test func theOriginIsTheSchemeAndAuthority() {
        #expect(MetricsAggregator.origin(of: "http://a.test:81/x?y") == "http://a.test:81")
        #expect(MetricsAggregator.origin(of: "https://u@a.test") == "https://u@a.test")
        #expect(MetricsAggregator.origin(of: "http://[::1]:8080?q") == "http://[::1]:8080")
        #expect(MetricsAggregator.origin(of: "mailto:a@b.test") == nil)
        #expect(MetricsAggregator.hasOrigin("http://a.test/x", "http://a.test"))
        #expect(MetricsAggregator.hasOrigin("http://a.test", "http://a.test"))
        #expect(MetricsAggregator.hasOrigin("", ""))
        #expect(!MetricsAggregator.hasOrigin("http://a.test", ""))
        #expect(MetricsAggregator.hasOrigin("/x", ""))
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
