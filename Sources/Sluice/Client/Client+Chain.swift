import FoundationEssentials

extension Client {
    /// The chain of a client made with `interceptors`, in the order requests go through it:
    ///
    /// 1. the user's interceptors, in their order: they see each request once, as the user made it;
    /// 2. retry: each attempt goes through everything below it again;
    /// 3. redirects: each hop goes through everything below it;
    /// 4. default headers, then the configured credentials (for the original origin only);
    /// 5. then the transport.
    public static func chain(_ interceptors: [any Interceptor], configuration: Configuration) -> [any Interceptor] {
        var chain = interceptors
        if let policy = configuration.retryPolicy { chain.append(RetryInterceptor(policy)) }
        chain.append(RedirectInterceptor(configuration.redirectPolicy))
        chain.append(
            DefaultHeadersInterceptor(
                configuration.defaultHeaders, sensitiveHeaders: configuration.redirectPolicy.sensitiveHeaders))
        if let authorization = configuration.authorization { chain.append(AuthorizationInterceptor(authorization)) }
        return chain
    }

    /// A client that sends through `interceptors` first, then through this client's chain; it shares
    /// this client's transport and in-flight requests (`cancelAll()` on either cancels both).
    ///
    ///     let user = try await client.intercepted(by: .bearer { token }).get("me").decode(User.self).value
    public func intercepted(by interceptors: any Interceptor...) -> Client {
        Client(deriving: self, chain: interceptors + self.interceptors)
    }

    /// A cold producer that sends `request` through the chain and delivers its response; every
    /// start sends it again, disposing cancels it. An invalid request fails when started, and
    /// nothing is sent.
    public func send(_ request: Request) -> SignalProducer<Response, SluiceError> {
        // The chain runs inside this producer's own subscription (`run(_:delivery:reporter:into:_:)`):
        // one closure for the producer, no gate and no derived producers per start.
        SignalProducer.serial { [self] observer, lifetime in
            // In flight before anything else happens (its task's first events, the interceptors):
            // cancelling through the client ends the subscription as disposing it would.
            lifetime += inFlight.register(method: request.method, url: request.url, lifetime: lifetime)
            // Watched requests stream, so that progress can be reported; others take the cheaper
            // collected path through the transport.
            let reporter = eventHub.reporter(for: request)
            // Unwatched requests on the default chain skip the chain's objects (see `DirectRun`).
            if reporter == nil, let directRoute {
                DirectRun.start(request, on: directRoute, of: self, into: observer, lifetime)
                return
            }
            let delivery: Exchange.Delivery =
                reporter != nil ? .streaming(nil) : preservesResponses ? .handedOver : .buffered
            run(request, delivery: delivery, reporter: reporter, into: observer, lifetime)
        }
    }

    /// The response of one run of `request` through the chain, its task's events sent to `reporter`.
    func collect(_ request: Request, delivery: Exchange.Delivery, reporter: TaskReporter?) -> SignalProducer<
        Response, SluiceError
    > {
        SignalProducer.serial { [self] observer, lifetime in
            run(request, delivery: delivery, reporter: reporter, into: observer, lifetime)
        }
    }

    /// One run of `request` through the chain within a subscription, as a response: the chain's
    /// transfer events put together by an observer on their path (no gate, no inner subscription),
    /// which sends the response to `downstream`.
    private func run(
        _ request: Request, delivery: Exchange.Delivery, reporter: TaskReporter?,
        into downstream: Observer<Response, SluiceError>, _ lifetime: Lifetime
    ) {
        reporter?.report(.created)
        reporter?.report(.resumed)
        let exchange = Exchange(
            request: request, transport: transport, scheduler: configuration.scheduler, delivery: delivery,
            reporter: reporter)
        let events = InterceptorChain(interceptors: interceptors, index: 0, exchange: exchange).proceed(request)
        events.run(
            into: ChainResponseRun(
                request: request, exchange: exchange, reporter: reporter, aggregator: metricsAggregator,
                downstream: downstream
            ).observer,
            lifetime)
    }

    /// The transfer events of `request` through the chain, delivered as they happen (chunks and
    /// progress); `control` can suspend and resume the transfer.
    func events(for request: Request, control: TransferControl?) -> SignalProducer<TransferEvent, SluiceError> {
        let chain = self.interceptors
        let transport = self.transport
        let scheduler = configuration.scheduler
        let hub = eventHub
        return SignalProducer { observer, lifetime in
            let reporter = hub.reporter(for: request)
            reporter?.report(.created)
            reporter?.report(.resumed)
            let exchange = Exchange(
                request: request, transport: transport, scheduler: scheduler, delivery: .streaming(control),
                reporter: reporter)
            lifetime += InterceptorChain(interceptors: chain, index: 0, exchange: exchange).proceed(request).start {
                event in
                switch event {
                case .failed(let error): reporter?.complete(TaskCompletion(response: nil, error: error))
                case .completed: reporter?.complete(TaskCompletion(response: nil, error: nil))
                case .interrupted: reporter?.cancelled()
                case .value: break
                }
                observer.send(event)
            }
        }
    }
}
