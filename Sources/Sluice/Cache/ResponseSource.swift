/// Where a response came from.
public enum ResponseSource: Sendable, Equatable, CustomStringConvertible {
    /// The server sent it whole (no cache, a miss, or a validation that changed it).
    case network
    /// The cache answered with a stored response; nothing was sent.
    case cache
    /// The cache validated a stored response with the server (a 304) and answered with it.
    case revalidated

    /// `network`, `cache` or `revalidated`.
    public var description: String {
        switch self {
        case .network: return "network"
        case .cache: return "cache"
        case .revalidated: return "revalidated"
        }
    }
}

/// What the cache did for one request (`TaskEvent.Kind.cache`, and the counts of `HostMetrics`).
public enum CacheOutcome: Sendable, Equatable, CustomStringConvertible {
    /// A stored response answered without the network: fresh, or stale where allowed
    /// (`stale-while-revalidate`, `stale-if-error`, the request's `max-stale` or cache policy).
    case hit
    /// No stored response could answer: the request went to the network.
    case miss
    /// A stored response was validated with the server, which said it had not changed (304).
    case revalidated

    /// `hit`, `miss` or `revalidated`.
    public var description: String {
        switch self {
        case .hit: return "hit"
        case .miss: return "miss"
        case .revalidated: return "revalidated"
        }
    }
}
