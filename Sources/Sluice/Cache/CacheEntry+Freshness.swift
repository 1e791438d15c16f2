import FoundationEssentials

// Freshness and age of a stored response (RFC 9111 §4.2), by the cache's clock.

extension CacheEntry {
    /// The fields freshness is computed from, parsed.
    struct Facts: Sendable, Equatable {
        /// The response's `Cache-Control` directives.
        let control: CacheControl
        /// The response's `Date`, or when it arrived if it has none (or an invalid one).
        let date: Date
        /// How long the response is fresh for (`CacheEntry.freshnessLifetime`).
        let lifetime: TimeInterval
        /// Its `Age` field, 0 without a valid one.
        let ageValue: Int

        init(headers: HTTPHeaders, status: Int, responseTime: Date) {
            control = CacheControl(headers)
            date = headers["Date"].flatMap { HTTPDate.parse($0) } ?? responseTime
            ageValue = headers["Age"].flatMap { CacheEntry.deltaSeconds($0) } ?? 0
            lifetime = Self.lifetime(headers, status: status, control: control, date: date)
        }

        /// How long the response is fresh for, from its explicit expiry or, where RFC 9111 §4.2.2
        /// allows it, heuristically: 10% of the time since its `Last-Modified`.
        private static func lifetime(_ headers: HTTPHeaders, status: Int, control: CacheControl, date: Date)
            -> TimeInterval
        {
            if let maxAge = control.maxAge { return TimeInterval(maxAge) }
            if let expires = headers["Expires"] {
                // An invalid date, "0" among them, means already expired (§5.3).
                guard let expiry = HTTPDate.parse(expires) else { return 0 }
                return max(0, expiry.timeIntervalSince(date))
            }
            guard control.isPublic || CacheEntry.heuristicallyCacheable.contains(status),
                let modified = headers["Last-Modified"].flatMap({ HTTPDate.parse($0) })
            else { return 0 }
            return max(0, date.timeIntervalSince(modified) / 10)
        }
    }

    /// The response's `Cache-Control` directives.
    var cacheControl: CacheControl { facts.control }

    /// The response's `Date`, or when it arrived if it has none (or an invalid one).
    var date: Date { facts.date }

    /// How long the response is fresh for, from its explicit expiry or, where RFC 9111 §4.2.2
    /// allows it, heuristically: 10% of the time since its `Last-Modified`.
    var freshnessLifetime: TimeInterval { facts.lifetime }

    /// The response's age at `now` (§4.2.3): its age when it arrived, corrected for the time the
    /// request took, plus the time it has been stored.
    func age(at now: Date) -> TimeInterval {
        let ageValue = facts.ageValue
        let apparentAge = max(0, responseTime.timeIntervalSince(date))
        let responseDelay = responseTime.timeIntervalSince(requestTime)
        let correctedAge = TimeInterval(ageValue) + responseDelay
        let initialAge = max(apparentAge, correctedAge)
        return initialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// The statuses a cache may give a heuristic lifetime without explicit permission (RFC 9110
    /// §15.1: "heuristically cacheable"); 206 is left out, as partial content is never stored here.
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// An `Age` value: digits only, else nil (an invalid `Age` is ignored).
    static func deltaSeconds(_ text: String) -> Int? {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return CacheControl.seconds(String(trimmed))
    }

    /// The response as the cache hands it out: its stored head with `Age` set to its current age.
    func response(for request: Request, at now: Date, source: ResponseSource) -> Response {
        var fields = headers
        fields["Age"] = String(Int(min(age(at: now), TimeInterval(CacheControl.largestDelta))))
        return Response(
            status: status, headers: fields, httpVersion: httpVersion, body: request.method == .head ? Data() : body,
            request: request, source: source)
    }
}
