import FoundationEssentials
import Sluice

extension HARTimings {
    /// The phases of a transfer from libcurl's times, which all count from its start: each phase
    /// is the difference between the time it ended and the time the one before it ended.
    init(_ metrics: TransferMetrics) {
        let lookup = Self.milliseconds(metrics.nameLookup)
        let connected = Self.milliseconds(metrics.connect)
        let secured = Self.milliseconds(metrics.tlsHandshake)
        let firstByte = Self.milliseconds(metrics.timeToFirstByte)
        let total = Self.milliseconds(metrics.total)
        let reused = metrics.reusedConnection
        dns = reused || lookup == 0 ? -1 : lookup
        // HAR counts the TLS handshake inside `connect` too.
        connect = reused ? -1 : max(0, max(connected, secured) - lookup)
        ssl = reused || secured == 0 ? -1 : max(0, secured - connected)
        wait = max(0, firstByte - max(lookup, connected, secured))
        receive = max(0, total - firstByte)
    }

    /// The total time the phases add up to, as the entry's `time` (the unmeasured ones count 0).
    var sum: Double {
        [blocked, dns, connect, send, wait, receive].reduce(0) { $0 + max(0, $1) }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
