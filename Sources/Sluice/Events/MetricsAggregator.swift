import Foundation
import Synchronization

/// Collects each finished request into per-host figures and publishes them as a `Property`.
///
/// Recording costs a lock and a few additions, so every request is counted; the published value is
/// rebuilt at most every `interval` (percentiles need a sort), on a queue of its own.
final class MetricsAggregator: Sendable {
    /// How many latest samples per host the percentiles are computed from.
    static let windowSize = 1024

    private struct HostState {
        var requests = 0
        var failures = 0
        var reused = 0
        var bytes: Int64 = 0
        var samples: [Duration] = []
        var next = 0
    }

    private struct State {
        var hosts: [String: HostState] = [:]
        var flushScheduled = false
    }

    private let state = Mutex(State())
    private let published = MutableProperty(ClientMetrics())
    private let scheduler: any DateScheduler
    private let interval: Duration

    init(scheduler: any DateScheduler = QueueScheduler(name: "sluice.metrics"), interval: Duration = .milliseconds(100))
    {
        self.scheduler = scheduler
        self.interval = interval
    }

    /// The figures, rebuilt at most every interval.
    var property: Property<ClientMetrics> { published.readOnly }

    /// Counts a request to `url` that ended with `response` or failed.
    func record(url: URL, response: Response?) {
        let host = "\(url.host ?? ""):\(url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))"
        let mustSchedule = state.withLock { s -> Bool in
            var entry = s.hosts[host] ?? HostState()
            entry.requests += 1
            if let response {
                if response.status >= 500 { entry.failures += 1 }
                if let metrics = response.metrics {
                    if metrics.reusedConnection { entry.reused += 1 }
                    entry.bytes += metrics.bytesReceived
                    if entry.samples.count < Self.windowSize {
                        entry.samples.append(metrics.total)
                    } else {
                        entry.samples[entry.next] = metrics.total
                    }
                    entry.next = (entry.next + 1) % Self.windowSize
                }
            } else {
                entry.failures += 1
            }
            s.hosts[host] = entry
            defer { s.flushScheduled = true }
            return !s.flushScheduled
        }
        if mustSchedule { scheduler.schedule(after: interval) { [self] in flush() } }
    }

    private func flush() {
        let hosts = state.withLock { s in
            s.flushScheduled = false
            return s.hosts
        }
        published.value = ClientMetrics(
            hosts: hosts.mapValues { entry in
                HostMetrics(
                    requestCount: entry.requests, failureCount: entry.failures, reusedConnectionCount: entry.reused,
                    bytesReceived: entry.bytes, latency: LatencySummary(samples: entry.samples))
            })
    }
}

extension Client {
    /// Per-host counts, error rates and latency percentiles of this client's requests, as a
    /// `Property` (updated at most every 100 ms).
    public var metrics: Property<ClientMetrics> { metricsAggregator.property }
}
