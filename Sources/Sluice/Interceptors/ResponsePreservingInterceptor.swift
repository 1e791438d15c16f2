/// An interceptor of this package that passes the transport's events on unchanged, or drops an
/// attempt's events whole (a redirect it follows, a response it retries or replays): it changes
/// requests, never responses, and never reads a body.
///
/// A client whose chain is made only of these hands the transport's collected response straight
/// to the caller (`Exchange.Delivery.handedOver`) instead of sending its body through the chain
/// and putting the response together again. A user's interceptor may change or read what passes,
/// so a chain with one takes the general path.
protocol ResponsePreservingInterceptor: Interceptor {}

extension RetryInterceptor: ResponsePreservingInterceptor {}
extension RedirectInterceptor: ResponsePreservingInterceptor {}
extension DefaultHeadersInterceptor: ResponsePreservingInterceptor {}
extension AuthorizationInterceptor: ResponsePreservingInterceptor {}
extension BearerAuthInterceptor: ResponsePreservingInterceptor {}
extension OfflineRetryInterceptor: ResponsePreservingInterceptor {}
