import FoundationEssentials

/// Answers requests from an `HTTPCache`, validates what it stored, and stores what it may
/// (RFC 9111, RFC 5861). A client with a `Configuration.cache` places it last in its chain, below
/// the redirects, default headers and credentials, as OkHttp places its CacheInterceptor: each hop
/// is stored as the request it really sent, so `Vary` compares the headers actually sent.
///
/// The clock is the chain's scheduler (`Client.Configuration.scheduler`): a `TestScheduler`
/// controls a cache's time in tests.
public struct CacheInterceptor: Interceptor {
    /// The cache it reads and fills.
    public let cache: HTTPCache

    /// Creates the interceptor.
    public init(_ cache: HTTPCache) { self.cache = cache }

    /// Methods after whose success the stored responses for the URL are invalidated: every method
    /// but the safe ones (RFC 9110 §9.2.1).
    static let safeMethods: Set<HTTPMethod> = [.get, .head, .options, .trace]

    /// Fields with which a request sets its own conditions or range: the cache leaves it alone.
    static let conditionalFields = [
        "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range",
    ]

    /// Answers `request` from the cache, validates a stored response, or sends it and stores the
    /// response.
    public func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        // What the cache never answers: other methods than GET and HEAD; a download to a file (a
        // partial one too), whose body goes where the caller asked; a request with its own
        // validators or range, which expects the server's answer to them. They pass by, unless
        // they may only be answered from the cache: then nothing is sent.
        let passesBy =
            (request.method != .get && request.method != .head) || request.options.destination.openedFile != nil
            || Self.conditionalFields.contains(where: { request.headers.contains($0) })
        if passesBy {
            if request.options.cachePolicy == .onlyIfCached {
                chain.recordCache(.miss, url: request.url)
                return SignalProducer(error: Self.notCached(request, because: "the cache does not answer it"))
            }
            guard Self.safeMethods.contains(request.method) else {
                return chain.proceed(request).on(value: { [cache] response in
                    if (200..<400).contains(response.status) { cache.invalidate(after: response, to: request.url) }
                })
            }
            return chain.proceed(request)
        }
        let cache = cache
        return SignalProducer { observer, lifetime in
            let now = chain.scheduler.currentDate
            let entry = request.options.cachePolicy == .reload ? nil : cache.candidates(for: request).first
            switch CacheDecision.decide(for: request, entry: entry, now: now) {
            case .answer(let entry):
                chain.recordCache(.hit, url: request.url)
                observer.send(value: entry.response(for: request, at: now, source: .cache))
                observer.sendCompleted()
            case .answerAndRevalidate(let entry):
                chain.recordCache(.hit, url: request.url)
                observer.send(value: entry.response(for: request, at: now, source: .cache))
                observer.sendCompleted()
                // Not tied to the caller's subscription, which has ended: the validation finishes
                // on its own and only updates the store.
                Self.revalidateInBackground(entry, request: request, cache: cache, chain: chain)
            case .validate(let entry):
                lifetime += Self.send(request, validating: entry, cache: cache, chain: chain, into: observer)
            case .fetch:
                lifetime += Self.send(request, validating: nil, cache: cache, chain: chain, into: observer)
            case .unavailable(let byPolicy):
                chain.recordCache(.miss, url: request.url)
                if byPolicy {
                    observer.send(error: Self.notCached(request, because: "no stored response matches it"))
                } else {
                    observer.send(
                        value: Response(status: 504, headers: ["Content-Length": "0"], request: request, source: .cache)
                    )
                    observer.sendCompleted()
                }
            }
        }
    }

    /// The failure of a request that may only be answered from the cache (`onlyIfCached`) and is not.
    private static func notCached(_ request: Request, because reason: String) -> SluiceError {
        SluiceError(
            .notCached,
            "\(request.method.rawValue) \(request.url.absoluteString) may only be answered from the cache "
                + "(onlyIfCached), and \(reason): nothing was sent.")
    }

    /// Sends `request`, with `entry`'s validators when there is one, and answers with what the
    /// server says: the entry freshened on a 304, the entry on an error that `stale-if-error`
    /// covers, the new response (stored when allowed) otherwise.
    private static func send(
        _ request: Request, validating entry: CacheEntry?, cache: HTTPCache, chain: InterceptorChain,
        into observer: Observer<Response, SluiceError>
    ) -> any Disposable {
        let requestTime = chain.scheduler.currentDate
        // Whether a response went on: a streamed one's body can still fail after it, and then the
        // failure is the request's (a stored answer in its place would be a second response).
        let answered = Lock(false)
        return chain.proceed(conditional(request, entry)).start { event in
            switch event {
            case .value(let response):
                answered.withLock { $0 = true }
                let responseTime = chain.scheduler.currentDate
                if let entry, response.status == 304 {
                    response.discardBody()
                    let updated = cache.freshen(
                        entry, with: response.head, requestTime: requestTime, responseTime: responseTime)
                    chain.recordCache(.revalidated, url: request.url)
                    observer.send(value: updated.response(for: request, at: responseTime, source: .revalidated))
                } else if let entry, [500, 502, 503, 504].contains(response.status),
                    CacheDecision.mayAnswerOnError(entry, request: request, now: responseTime)
                {
                    response.discardBody()
                    chain.recordCache(.hit, url: request.url)
                    observer.send(value: entry.response(for: request, at: responseTime, source: .cache))
                } else {
                    chain.recordCache(.miss, url: request.url)
                    if let storing = cache.storingAsRead(
                        response, for: request, requestTime: requestTime, responseTime: responseTime)
                    {
                        observer.send(value: storing)
                    } else {
                        cache.storeIfAllowed(
                            response, for: request, requestTime: requestTime, responseTime: responseTime)
                        cache.updateStoredGETs(
                            after: response.head, to: request, requestTime: requestTime, responseTime: responseTime)
                        observer.send(value: response)
                    }
                }
            case .failed(let error):
                let now = chain.scheduler.currentDate
                if let entry, !answered.withLock({ $0 }),
                    CacheDecision.mayAnswerOnError(entry, request: request, now: now)
                {
                    chain.recordCache(.hit, url: request.url)
                    observer.send(value: entry.response(for: request, at: now, source: .cache))
                    observer.sendCompleted()
                } else {
                    observer.send(error: error)
                }
            case .completed: observer.sendCompleted()
            case .interrupted: observer.sendInterrupted()
            }
        }
    }

    /// Validates `entry` after a stale answer, storing what the server says.
    private static func revalidateInBackground(
        _ entry: CacheEntry, request: Request, cache: HTTPCache, chain: InterceptorChain
    ) {
        let requestTime = chain.scheduler.currentDate
        _ = chain.proceed(conditional(request, entry))
            .flatMap(.concat) { $0.collected() }
            .startWithValues { response in
                let responseTime = chain.scheduler.currentDate
                if response.status == 304 {
                    _ = cache.freshen(entry, with: response.head, requestTime: requestTime, responseTime: responseTime)
                } else {
                    cache.storeIfAllowed(response, for: request, requestTime: requestTime, responseTime: responseTime)
                    cache.updateStoredGETs(
                        after: response.head, to: request, requestTime: requestTime, responseTime: responseTime)
                }
            }
    }

    /// `request` with `entry`'s validators added, or as it is.
    private static func conditional(_ request: Request, _ entry: CacheEntry?) -> Request {
        guard let entry else { return request }
        var request = request
        for field in entry.validators { request.headers[field.name] = field.value }
        return request
    }
}

extension InterceptorChain {
    /// Counts what the cache did for a request to `url` in the client's metrics, and reports it to
    /// the task's observers.
    func recordCache(_ outcome: CacheOutcome, url: URL) {
        exchange.aggregator.recordCache(url: url, outcome: outcome)
        exchange.report(.cache(outcome))
    }
}
