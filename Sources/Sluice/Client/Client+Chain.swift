import FoundationEssentials

extension Client {
    /// The chain of a client made with `interceptors`, in the order requests go through it:
    ///
    /// 1. request coalescing, when `coalescesRequests` asks for it, then the user's interceptors, in
    ///    their order: they see each request once, as the user made it;
    /// 2. retry, with the configuration's `retryPolicy` (a request's own `options.retryPolicy`
    ///    takes its place): each attempt goes through everything below it again;
    /// 3. redirects: each hop goes through everything below it;
    /// 4. default headers, then the configured credentials (for the original origin only);
    /// 5. the cache, when configured: it sees each hop as it is sent;
    /// 6. then the transport.
    public static func chain(_ interceptors: [any Interceptor], configuration: Configuration) -> [any Interceptor] {
        var chain: [any Interceptor] = configuration.coalescesRequests ? [CoalescingInterceptor()] : []
        chain += interceptors
        // Always in the chain, so that a request can ask for retries of its own
        // (`options.retryPolicy`); with no policy it passes requests straight on.
        chain.append(RetryInterceptor(configuration.retryPolicy ?? .never))
        chain.append(RedirectInterceptor(configuration.redirectPolicy))
        chain.append(
            DefaultHeadersInterceptor(
                configuration.defaultHeaders,
                sensitiveHeaders: configuration.redirectPolicy.crossOriginRemovedHeaders))
        if let authorization = configuration.authorization { chain.append(AuthorizationInterceptor(authorization)) }
        if let cache = configuration.cache { chain.append(CacheInterceptor(cache)) }
        return chain
    }

    /// A client that sends through `interceptors` first, then through this client's chain; it shares
    /// this client's transport and in-flight requests (`cancelAll()` on either cancels both).
    ///
    ///     let user = try await client.intercepted(by: .bearer { token }).get("me").decode(User.self).value
    public func intercepted(by interceptors: any Interceptor...) -> Client {
        Client(deriving: self, chain: interceptors + self.interceptors)
    }

    /// A cold producer that sends `request` through the chain and delivers its response, its body
    /// collected; every start sends it again, disposing cancels it. An invalid request fails when
    /// started, and nothing is sent.
    ///
    /// Every request takes this one path, whatever the chain holds and whoever watches the
    /// client's `events`: the chain's interceptors, then the transport, and back.
    public func send(_ request: Request) -> SignalProducer<Response, SluiceError> {
        insecureTLSWarning.note(request.options)
        // The chain runs inside this producer's own subscription (`Exchange.start`): no gate and
        // no derived producers per start. The exchange of the first start is made here and is
        // the closure's only capture, so the closure needs no context of its own.
        let exchange = Exchange(
            request: withCookieJar(request), client: self, mode: .collected, control: nil, listed: true)
        return SignalProducer.serial { observer, lifetime in
            exchange.startForThisStart(into: consume observer, lifetime)
        }
    }

    /// The response of one run of `request` through the chain, its body as `mode` asks, its task's
    /// events sent to `reporter`; `control` suspends and resumes the transfer. The request is not
    /// listed among the client's requests in flight: its caller (a task, a stream) lists it.
    func response(
        for request: Request, mode: Exchange.BodyMode, control: TransferControl?, reporter: TaskReporter?
    ) -> SignalProducer<Response, SluiceError> {
        insecureTLSWarning.note(request.options)
        return SignalProducer.serial { [self] observer, lifetime in
            Exchange(request: withCookieJar(request), client: self, mode: mode, control: control, listed: false)
                .start(reporter: reporter, into: consume observer, lifetime)
        }
    }

    /// `request` with this client's cookie jar, unless it asks for none: a request made elsewhere
    /// (by hand, by another client) uses the jar of the client that sends it. One comparison when
    /// the request has the jar already, as those `makeRequest` builds do.
    func withCookieJar(_ request: Request) -> Request {
        let jar = request.options.usesCookies ? configuration.cookies : nil
        if request.options.cookieJar?.jar === jar { return request }
        var request = request
        request.options.cookieJar = jar.map(CookieJarReference.init)
        return request
    }
}
