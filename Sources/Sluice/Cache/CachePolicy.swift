/// How one request uses the client's cache (`RequestOptions.cachePolicy`); without a cache
/// configured, every policy goes to the network.
public enum CachePolicy: Sendable, Equatable {
    /// HTTP's rules (RFC 9111, RFC 5861): a fresh stored response answers, a stale one is
    /// validated, and the request's own `Cache-Control` is honoured.
    case useProtocol
    /// Ignores what is stored and loads from the network; the new response is stored when allowed.
    case reload
    /// Answers with any stored response for the request, however stale; loads from the network
    /// only when nothing is stored.
    case returnCachedElseLoad
    /// Answers with any stored response for the request, however stale, and never sends
    /// anything: with nothing stored, the request fails with `SluiceError.Code.notCached`.
    case onlyIfCached
}

extension SluiceError.Code {
    /// The request asked to be answered from the cache only (`CachePolicy.onlyIfCached`) and no
    /// stored response matches it; nothing was sent.
    public static let notCached = SluiceError.Code("notCached")
}
