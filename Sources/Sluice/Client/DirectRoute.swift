/// The chain of a client whose interceptors are exactly a redirect interceptor, then a default
/// headers interceptor, whatever their settings: the chain `Client.chain(_:configuration:)` makes
/// with no interceptor of the user's, no retry policy and no credentials (as `Client(baseURL:)`
/// does), or the same two given to `Client(chain:)`.
///
/// Neither changes a response that is not a redirect, and the first hop's request is known before
/// anything is sent (the defaults added to the request as it was made), so a request on such a
/// client is sent by a `DirectRun`, which makes the chain's objects only for a response that
/// needs them. (A class: every run refers to its client's route, which is made once.)
final class DirectRoute: Sendable {
    let redirects: RedirectInterceptor
    let defaults: DefaultHeadersInterceptor

    /// The route of `chain`, or nil when it is not exactly the two built-in interceptors.
    init?(_ chain: [any Interceptor]) {
        // Both are structs, so a cast that succeeds names the very type (no subclass can differ).
        guard chain.count == 2, let redirects = chain[0] as? RedirectInterceptor,
            let defaults = chain[1] as? DefaultHeadersInterceptor
        else { return nil }
        self.redirects = redirects
        self.defaults = defaults
    }

    /// The position of the redirect interceptor in the chain: the chain it proceeds with starts
    /// after it.
    static let redirectsIndex = 0
}
