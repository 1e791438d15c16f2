import FoundationEssentials

/// What the cache does with a request, given the stored response that matches it (RFC 9111 §4,
/// RFC 5861): a pure function of the request, the entry and the time, so it is tested apart.
enum CacheDecision: Equatable {
    /// Answer with the stored response; nothing is sent.
    case answer(CacheEntry)
    /// Answer with the stale stored response, and validate it in the background
    /// (`stale-while-revalidate`).
    case answerAndRevalidate(CacheEntry)
    /// Send the request with the entry's validators; a 304 answers with the entry.
    case validate(CacheEntry)
    /// Send the request as it is.
    case fetch
    /// Nothing may be sent, and nothing stored answers: `onlyIfCached`'s error, or the 504 that
    /// RFC 9111 §5.2.1.7 gives a request with `Cache-Control: only-if-cached`.
    case unavailable(byPolicy: Bool)

    static func decide(for request: Request, entry: CacheEntry?, now: Date) -> CacheDecision {
        let policy = request.options.cachePolicy
        let requestControl = Self.requestControl(request.headers)
        if policy == .reload { return .fetch }
        guard let entry else {
            if policy == .onlyIfCached { return .unavailable(byPolicy: true) }
            return requestControl.onlyIfCached ? .unavailable(byPolicy: false) : .fetch
        }
        if policy == .returnCachedElseLoad || policy == .onlyIfCached { return .answer(entry) }
        let control = entry.cacheControl
        let age = entry.age(at: now)
        let lifetime = entry.freshnessLifetime
        if !control.noCache && !requestControl.noCache {
            let fresh = lifetime > age
            let youngEnough = requestControl.maxAge.map { age <= TimeInterval($0) } ?? true
            let freshEnough = requestControl.minFresh.map { lifetime - age >= TimeInterval($0) } ?? true
            if fresh && youngEnough && freshEnough { return .answer(entry) }
            let staleness = age - lifetime
            if !fresh && !control.mustRevalidate && youngEnough {
                if let maxStale = requestControl.maxStale, staleness <= TimeInterval(maxStale) { return .answer(entry) }
                if let window = control.staleWhileRevalidate, staleness <= TimeInterval(window) {
                    return .answerAndRevalidate(entry)
                }
            }
        }
        if requestControl.onlyIfCached { return .unavailable(byPolicy: false) }
        return .validate(entry)
    }

    /// Whether a stale `entry` may answer instead of a failed validation (`stale-if-error` of the
    /// response or the request, RFC 5861 §4), at `now`; never when it must be revalidated.
    static func mayAnswerOnError(_ entry: CacheEntry, request: Request, now: Date) -> Bool {
        let control = entry.cacheControl
        guard !control.mustRevalidate, !control.noCache else { return false }
        guard let window = control.staleIfError ?? requestControl(request.headers).staleIfError else { return false }
        return entry.age(at: now) - entry.freshnessLifetime <= TimeInterval(window)
    }

    /// A request's directives, with `Pragma: no-cache` read as `no-cache` when it has no
    /// `Cache-Control` (RFC 9111 §5.4).
    static func requestControl(_ headers: HTTPHeaders) -> CacheControl {
        var control = CacheControl(headers)
        if !headers.contains("Cache-Control"),
            headers.values(for: "Pragma").contains(where: { $0.lowercased().contains("no-cache") })
        {
            control.noCache = true
        }
        return control
    }
}
