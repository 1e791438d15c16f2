import FoundationEssentials

/// What a client's requests to each host looked like: counts, failures and latencies
/// (`Client.metrics`).
public struct ClientMetrics: Sendable, Equatable {
    /// Per host (`host:port`).
    public var hosts: [String: HostMetrics]

    /// No requests yet.
    public init(hosts: [String: HostMetrics] = [:]) {
        self.hosts = hosts
    }

    /// All hosts together: counts summed (latencies are per host only).
    public var requestCount: Int { hosts.values.reduce(0) { $0 + $1.requestCount } }
}

/// The requests of one client to one host.
public struct HostMetrics: Sendable, Equatable {
    /// Requests that ended, with a response or an error.
    public var requestCount: Int
    /// Requests that failed in the transport, or were answered with a 5xx status.
    public var failureCount: Int
    /// Responses that came over a reused connection.
    public var reusedConnectionCount: Int
    /// Body bytes received.
    public var bytesReceived: Int64
    /// Total transfer time percentiles, over the last 1,024 responses.
    public var latency: LatencySummary
    /// Requests the client's cache answered without the network (`CacheOutcome.hit`).
    public var cacheHits = 0
    /// Requests the client's cache could not answer, sent to the network (`CacheOutcome.miss`).
    public var cacheMisses = 0
    /// Stored responses the cache validated with the server (`CacheOutcome.revalidated`).
    public var cacheRevalidations = 0

    /// The share of requests that failed, from 0 to 1.
    public var errorRate: Double { requestCount == 0 ? 0 : Double(failureCount) / Double(requestCount) }
}

/// Percentiles of the total transfer time.
public struct LatencySummary: Sendable, Equatable {
    /// The median.
    public var p50: Duration
    /// The 90th percentile.
    public var p90: Duration
    /// The 99th percentile.
    public var p99: Duration
    /// The slowest.
    public var max: Duration

    /// All zero.
    public static let zero = LatencySummary(p50: .zero, p90: .zero, p99: .zero, max: .zero)

    /// The percentiles of `samples` (nearest rank), or zero for none.
    public init(samples: [Duration]) {
        guard !samples.isEmpty else {
            self = .zero
            return
        }
        let sorted = samples.sorted()
        func rank(_ p: Double) -> Duration {
            sorted[Swift.min(sorted.count - 1, Swift.max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
        }
        self.init(p50: rank(0.5), p90: rank(0.9), p99: rank(0.99), max: sorted[sorted.count - 1])
    }

    /// The percentiles of `seconds` (nearest rank), or zero for none.
    ///
    /// Found by selection, not by sorting: the window is summarized whenever the metrics are read,
    /// and ten times a second while they are watched; sorting it cost more than the rest of the
    /// bookkeeping of the requests in between. The ranks are selected from the highest down, each
    /// within the part left of the previous one.
    init(seconds: [Double]) {
        guard !seconds.isEmpty else {
            self = .zero
            return
        }
        var values = seconds
        let count = values.count
        func index(_ p: Double) -> Int {
            Swift.min(count - 1, Swift.max(0, Int((p * Double(count)).rounded(.up)) - 1))
        }
        let (i99, i90, i50) = (index(0.99), index(0.9), index(0.5))
        let maximum = values.max()!
        let p99 = Self.select(i99, in: &values, below: count)
        let p90 = Self.select(i90, in: &values, below: i99 + 1)
        let p50 = Self.select(i50, in: &values, below: i90 + 1)
        self.init(
            p50: .timeInterval(p50), p90: .timeInterval(p90), p99: .timeInterval(p99), max: .timeInterval(maximum))
    }

    /// The value that would be at `rank` if `values[0..<end]` were sorted; afterwards that part is
    /// partitioned around it (Hoare's selection, middle element as the pivot).
    private static func select(_ rank: Int, in values: inout [Double], below end: Int) -> Double {
        values.withUnsafeMutableBufferPointer { buffer in
            var low = 0
            var high = end - 1
            while low < high {
                let pivot = buffer[low + (high - low) / 2]
                var i = low
                var j = high
                while i <= j {
                    while buffer[i] < pivot { i += 1 }
                    while buffer[j] > pivot { j -= 1 }
                    if i <= j {
                        buffer.swapAt(i, j)
                        i += 1
                        j -= 1
                    }
                }
                if rank <= j {
                    high = j
                } else if rank >= i {
                    low = i
                } else {
                    break
                }
            }
            return buffer[rank]
        }
    }

    /// Creates a summary.
    public init(p50: Duration, p90: Duration, p99: Duration, max: Duration) {
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.max = max
    }
}
