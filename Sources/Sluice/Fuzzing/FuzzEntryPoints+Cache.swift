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
    /// that reads encodes back to the very same bytes.
    package static func cacheEntry(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let entry = CacheEntry(decoding: UnsafeRawBufferPointer(bytes)) else { return }
        precondition(entry.encoded() == Data(bytes), "an entry that does not encode back to its bytes")
        _ = entry.freshnessLifetime
        _ = entry.age(at: Date(timeIntervalSince1970: 1_800_000_000))
    }
}
