import FoundationEssentials

/// A step in the chain every request goes through on its way to the transport (OkHttp's shape).
///
/// An interceptor receives the request and the rest of the chain. It calls `chain.proceed(_:)`
/// zero or more times, and returns the response the caller sees:
///
/// - to adapt the request, proceed with a changed copy;
/// - to answer without the network, return a response of its own and never proceed;
/// - to observe or transform the response, map what `proceed` returns;
/// - to retry, start `proceed` again (each start sends the rest of the chain again), after
///   letting go of the dropped response's body (`Response.discardBody()`);
/// - to fail, return `SignalProducer(error:)`.
///
/// The producer sends one `Response`, then completes (for a streaming body, when the body has
/// ended). Its body is collected or streaming (`Response.content`): an interceptor that does not
/// read it passes it on and pays nothing; one that needs every byte uses `Response.collected()`.
/// Everything is lazy: nothing runs until the caller starts the returned producer.
///
///     struct Tagging: Interceptor {
///         func intercept(_ request: Request, chain: InterceptorChain)
///             -> SignalProducer<Response, SluiceError> {
///             var request = request
///             request.headers["X-Request-ID"] = UUID().uuidString
///             return chain.proceed(request)
///         }
///     }
public protocol Interceptor: Sendable {
    /// Sends `request` through the rest of `chain`, or answers it, and returns the response.
    func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError>
}

/// The rest of the chain, as an interceptor sees it: the interceptors after it, then the transport.
public struct InterceptorChain: Sendable {
    /// The exchange of the request's start; the interceptors are its client's, read through it,
    /// so that each step of the chain retains one reference, not two (the array's retain cost
    /// more than copying out the interceptor it is asked for).
    let exchange: Exchange
    /// The position in the client's interceptors of the next interceptor.
    let index: Int
    /// Told of every report made further down (see `proceed(_:reportingTo:)`); nil when no
    /// interceptor asked, which is the common case and costs two words per chain.
    var listener: ReportListener? = nil

    /// The request as it entered the chain, before any interceptor changed it.
    public var originalRequest: Request { exchange.originalRequest }

    /// Whether a response has arrived in this run of the request (on any attempt or redirect hop):
    /// after one, the request may have been processed by a server, so it is not safe to send a
    /// request that is not idempotent again blindly.
    public var hasReceivedResponse: Bool { exchange.hasReceivedResponse }

    /// The scheduler time-based interceptors (retry backoff) wait on.
    public var scheduler: any DateScheduler { exchange.scheduler }

    /// A cold producer that sends `request` through the rest of the chain; every start sends it again.
    public func proceed(_ request: Request) -> SignalProducer<Response, SluiceError> {
        let interceptors = exchange.client.interceptors
        guard index < interceptors.count else { return exchange.transfer(request) }
        return interceptors[index].intercept(
            request, chain: InterceptorChain(exchange: exchange, index: index + 1, listener: listener))
    }

    /// Sends `request` through the rest of the chain as `proceed(_:)` does, and tells `listener` of
    /// every step the interceptors further down report (`report(_:)`: retries, redirect hops), as
    /// they report it, also when nobody watches the client's events.
    ///
    /// For an interceptor that follows one request across its hops, such as a tracing span opened
    /// first in the chain: it sees the request once, and only the interceptors below it retry and
    /// redirect. Listeners of interceptors further up are told too.
    public func proceed(_ request: Request, reportingTo listener: @escaping ReportListener) -> SignalProducer<
        Response, SluiceError
    > {
        var chain = self
        if let outer = self.listener {
            chain.listener = { kind in
                listener(kind)
                outer(kind)
            }
        } else {
            chain.listener = listener
        }
        return chain.proceed(request)
    }

    /// Reports a step of the request's lifecycle (a retry, a redirect) to the client's and the
    /// request's event observers, and to the listeners of the interceptors above.
    public func report(_ event: TaskEvent.Kind) {
        listener?(event)
        exchange.report(event)
    }

    /// Told of the steps the interceptors further down the chain report (see
    /// `proceed(_:reportingTo:)`), on the thread that reports them. Keep it short.
    public typealias ReportListener = @Sendable (TaskEvent.Kind) -> Void
}
