import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Collects each finished request into per-host figures and publishes them as a `Property`.
///
/// Recording costs a lock and a few additions, so every request is counted. The figures are
/// summarized (percentiles need a selection over the window) when they are asked for: reading the
/// property's value summarizes them then, and while somebody observes its changes, a summary is
/// sent at most every `interval`, on a queue of its own, and one after each observer attaches.
/// Nobody watching, nothing is summarized.
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
        var cacheHits = 0
        var cacheMisses = 0
        var cacheRevalidations = 0

        /// Counts a request that failed without a response.
        mutating func recordFailure() {
            requests += 1
            failures += 1
        }

        /// Counts a request that ended with `response`, read where it lies: unwrapping an optional
        /// copied it (its box and its outcome observer, retained and released).
        mutating func record(_ response: Response) {
            requests += 1
            if response.status >= 500 { failures += 1 }
            // Read where they lie: copying the metrics out retained each of their strings.
            guard let microseconds = response.metrics?.totalMicroseconds else { return }
            if response.metrics?.reusedConnection == true { reused += 1 }
            bytes += response.metrics?.bytesReceived ?? 0
            let seconds = Double(microseconds) / 1_000_000
            if samples.count < MetricsAggregator.windowSize {
                samples.append(seconds)
            } else {
                samples[next] = seconds
            }
            next = (next + 1) % MetricsAggregator.windowSize
        }
    }

    private struct State {
        /// Each host's figures, at the slot `slots` gives its key: a request updates its host's
        /// figures in place, by index, without hashing the key.
        var figures: [HostState] = []
        var slots: [String: Int] = [:]
        var flushScheduled = false
        /// The `scheme://authority` text of the last URL recorded and its host's slot, reused
        /// while requests go to the same origin: reading a URL's scheme, host and port through
        /// `URL` parses and decodes them, which cost more than the rest of the recording.
        var lastOrigin = ""
        var lastSlot = 0

        /// Whether the caller is to schedule a summary: none is due yet (then one is, from now).
        mutating func claimFlush() -> Bool {
            guard !flushScheduled else { return false }
            flushScheduled = true
            return true
        }

        /// The slot for `key`, made if it is new.
        mutating func slot(for key: String) -> Int {
            if let slot = slots[key] { return slot }
            figures.append(HostState())
            slots[key] = figures.count - 1
            return figures.count - 1
        }
    }

    private let state = Lock(State())
    /// The summaries sent to the property's observers, and how many there are.
    private let changes: Signal<ClientMetrics, Never>
    private let changesInput: Observer<ClientMetrics, Never>
    private let observers: ObserverCount
    private let scheduler: any DateScheduler
    private let interval: Duration

    init(scheduler: any DateScheduler = QueueScheduler(name: "sluice.metrics"), interval: Duration = .milliseconds(100))
    {
        self.scheduler = scheduler
        self.interval = interval
        (changes, changesInput, observers) = Signal.countingPipe()
    }

    /// The figures: the value is summarized when read; the changes come at most every interval,
    /// while observed.
    var property: Property<ClientMetrics> {
        Property(current: { [self] in summary() }, changes: watchedChanges)
    }

    /// The changes as an observer attaches to them: each attachment schedules a summary, made after
    /// it, so that no observer is left with figures older than its attachment. (Otherwise a request
    /// recorded just before an observer came, or a summary made before and delivered after the
    /// producer's first value, could leave it with stale figures until the next request.)
    /// (It holds the aggregator weakly: an observer of the signal alone does not keep the metrics
    /// alive, and learns that they end when the client goes.)
    private var watchedChanges: Signal<ClientMetrics, Never> {
        Signal(attach: { [changes, weak self] observer in
            let observation = changes.observe(observer)
            self?.scheduleFlush()
            return observation
        })
    }

    deinit {
        // The property's observers learn that no figures will come any more.
        changesInput.sendCompleted()
    }

    /// Counts a request to `url` that failed without a response.
    func recordFailure(url: URL) {
        update(url) { $0.recordFailure() }
    }

    /// Counts a request that ended with `response`, to the URL of the request it answers (read
    /// where it lies, not wrapped in an optional: wrapping copied it).
    func record(_ response: Response) {
        update(response.request.url) { $0.record(response) }
    }

    /// Counts what the cache did for a request to `url`.
    func recordCache(url: URL, outcome: CacheOutcome) {
        update(url) { host in
            switch outcome {
            case .hit: host.cacheHits += 1
            case .miss: host.cacheMisses += 1
            case .revalidated: host.cacheRevalidations += 1
            }
        }
    }

    /// Changes the figures of `url`'s host, and schedules their publication.
    private func update(_ url: URL, _ change: (inout HostState) -> Void) {
        let text = url.absoluteString
        let mustSchedule = state.withLock { s -> Bool in
            let slot: Int
            if !s.lastOrigin.isEmpty && Self.hasOrigin(text, s.lastOrigin) {
                slot = s.lastSlot
            } else {
                let scheme = url.scheme
                let key = "\(url.host ?? ""):\(url.port ?? (scheme?.lowercased() == "https" ? 443 : 80))"
                slot = s.slot(for: key)
                s.lastOrigin = Self.origin(of: text) ?? ""
                s.lastSlot = slot
            }
            change(&s.figures[slot])
            // Summaries are sent only while observed: an observer that comes later gets one made
            // after it attached (`watchedChanges`).
            return observers.isObserved && s.claimFlush()
        }
        if mustSchedule { flushAfterInterval() }
    }

    /// Schedules a summary unless one is due already.
    private func scheduleFlush() {
        if state.withLock({ $0.claimFlush() }) { flushAfterInterval() }
    }

    /// Sends a summary once the interval has passed (the caller claimed it, `claimFlush`).
    private func flushAfterInterval() {
        scheduler.schedule(after: interval) { [self] in flush() }
    }

    /// The `scheme://authority` start of an absolute URL's text, or nil if it has no authority.
    static func origin(of text: String) -> String? {
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes.count > colon + 2,
            bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        let end = bytes[(colon + 3)...].firstIndex { HTTPURLText.isAuthorityEnd($0) } ?? bytes.count
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// Whether `text` starts with `origin` and the authority ends there: a byte comparison of the
    /// two strings' contiguous storage.
    static func hasOrigin(_ text: String, _ origin: String) -> Bool {
        // Native strings hold their bytes contiguously, read in place; `withUTF8` needed copies of
        // both strings to call its mutating method on (two retains and releases).
        let inPlace = text.utf8.withContiguousStorageIfAvailable { t in
            origin.utf8.withContiguousStorageIfAvailable { o in matches(t, origin: o) }
        }
        if let inPlace, let result = inPlace { return result }
        return Array(text.utf8).withUnsafeBufferPointer { t in
            Array(origin.utf8).withUnsafeBufferPointer { o in matches(t, origin: o) }
        }
    }

    private static func matches(_ text: UnsafeBufferPointer<UInt8>, origin: UnsafeBufferPointer<UInt8>) -> Bool {
        guard text.count >= origin.count else { return false }
        if origin.count > 0, memcmp(text.baseAddress!, origin.baseAddress!, origin.count) != 0 { return false }
        return text.count == origin.count || HTTPURLText.isAuthorityEnd(text[origin.count])
    }

    /// Sends the current summary to the property's observers.
    private func flush() {
        changesInput.send(value: summary(endingScheduledFlush: true))
    }

    /// The figures now, summarized.
    private func summary(endingScheduledFlush: Bool = false) -> ClientMetrics {
        let hosts = state.withLock { s in
            if endingScheduledFlush { s.flushScheduled = false }
            return (slots: s.slots, figures: s.figures)
        }
        let byHost = hosts.slots.mapValues { slot in
            let entry = hosts.figures[slot]
            return HostMetrics(
                requestCount: entry.requests, failureCount: entry.failures, reusedConnectionCount: entry.reused,
                bytesReceived: entry.bytes, latency: LatencySummary(seconds: entry.samples), cacheHits: entry.cacheHits,
                cacheMisses: entry.cacheMisses, cacheRevalidations: entry.cacheRevalidations)
        }
        return ClientMetrics(hosts: byHost)
    }
}

extension Client {
    /// Per-host counts, error rates and latency percentiles of this client's requests, as a
    /// `Property`: its value is summarized when read (a selection over each host's latest 1,024
    /// times: read it when needed rather than in a tight loop), and its changes are sent at most
    /// every 100 ms while somebody observes them, the first within 100 ms of an observer's coming.
    public var metrics: Property<ClientMetrics> { metricsAggregator.property }
}
