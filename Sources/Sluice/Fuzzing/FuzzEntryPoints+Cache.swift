import FoundationEssentials

extension SluiceFuzzing {
    /// Reads `text` as `Cache-Control` field values (one per line), and checks the invariants the
    /// cache's freshness arithmetic relies on: no negative and no unbounded `delta-seconds`.
    package static func cacheControl(_ text: String) {
        var headers = HTTPHeaders()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            headers.add(name: "Cache-Control", value: String(line))
        }
        let control = CacheControl(headers)
        for value in [
            control.maxAge, control.sharedMaxAge, control.minFresh, control.staleIfError,
            control.staleWhileRevalidate,
        ] {
            guard let value else { continue }
            precondition((0...CacheControl.largestDelta).contains(value), "a delta-seconds value out of range")
        }
        if let stale = control.maxStale { precondition(stale >= 0, "a negative max-stale") }
        precondition(CacheControl(parsing: text.split(separator: "\n").first.map(String.init) ?? "").maxAge ?? 0 >= 0)
        _ = CacheDecision.requestControl(headers)
    }

    /// Reads `bytes` as a stored cache entry: anything but one intact entry is nil, and an entry
    /// that reads encodes back to the very same bytes, but for its two times. Those are kept as
    /// seconds since 1970 and `Date` counts from 2001, so a time it cannot hold exactly (one the
    /// cache never wrote, such as 1e-105) comes back rounded, by at most a microsecond or a
    /// millionth of a millionth of itself; the entry it comes back as then reads and encodes as
    /// itself, and is the first in every other field.
    package static func cacheEntry(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let entry = CacheEntry(decoding: UnsafeRawBufferPointer(bytes)) else { return }
        let encoded = entry.encoded()
        if encoded != Data(bytes) {
            guard var reread = encoded.withUnsafeBytes({ CacheEntry(decoding: $0) }) else {
                preconditionFailure("an entry whose encoding does not read back")
            }
            precondition(reread.encoded() == encoded, "an entry that does not encode back to its bytes")
            for (before, after) in [
                (entry.requestTime, reread.requestTime), (entry.responseTime, reread.responseTime),
            ] {
                let seconds = before.timeIntervalSince1970
                let moved = abs(after.timeIntervalSince1970 - seconds)
                precondition(moved <= max(1e-6, abs(seconds) * 1e-12), "an entry's time moved by \(moved) s")
            }
            reread.requestTime = entry.requestTime
            reread.responseTime = entry.responseTime
            precondition(reread == entry, "an entry that changed beyond its times")
        }
        _ = entry.freshnessLifetime
        _ = entry.age(at: Date(timeIntervalSince1970: 1_800_000_000))
    }
}
