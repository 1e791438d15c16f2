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
        /// Total times in seconds: doubles sort several times faster than `Duration`s.
        var samples: [Double] = []
        var next = 0

        mutating func record(_ response: Response?) {
            requests += 1
            guard let response else {
                failures += 1
                return
            }
            if response.status >= 500 { failures += 1 }
            guard let metrics = response.metrics else { return }
            if metrics.reusedConnection { reused += 1 }
            bytes += metrics.bytesReceived
            let seconds = metrics.total.timeInterval
            if samples.count < MetricsAggregator.windowSize {
                samples.append(seconds)
            } else {
                samples[next] = seconds
            }
            next = (next + 1) % MetricsAggregator.windowSize
        }
    }

    private struct State {
        var hosts: [String: HostState] = [:]
        var flushScheduled = false
        /// The key of the last URL recorded, reused while requests go to the same host.
        var lastURL: (scheme: String?, host: String?, port: Int?, key: String)?
    }

    private let state = Lock(State())
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
        let scheme = url.scheme
        let host = url.host
        let port = url.port
        let mustSchedule = state.withLock { s -> Bool in
            let key: String
            if let last = s.lastURL, last.host == host, last.port == port, last.scheme == scheme {
                key = last.key
            } else {
                key = "\(host ?? ""):\(port ?? (scheme?.lowercased() == "https" ? 443 : 80))"
                s.lastURL = (scheme, host, port, key)
            }
            // In place: the sample window is never copied.
            s.hosts[key, default: HostState()].record(response)
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
                    bytesReceived: entry.bytes, latency: LatencySummary(seconds: entry.samples))
            })
    }
}

extension Client {
    /// Per-host counts, error rates and latency percentiles of this client's requests, as a
    /// `Property` (updated at most every 100 ms).
    public var metrics: Property<ClientMetrics> { metricsAggregator.property }
}
