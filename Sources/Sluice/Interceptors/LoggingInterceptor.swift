import FoundationEssentials
import Logging
import Synchronization

/// Logs each request and its response through swift-log, so the application chooses where the
/// lines go.
///
/// At `.info` (the default level of the request and response lines): one line as the request goes
/// out (`→ GET https://…`) and one as it ends (`← 200 GET https://… 12 ms, 1.2 KB`, or the error);
/// after redirects, the end line names the URL that answered and the one the request was made for.
/// At `.debug`: the headers of both, and the first bytes of text bodies. The values of
/// `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`, the headers named in
/// `redactedHeaders`, the API-key and token headers of `RedirectPolicy.secretHeaders`, and passwords
/// in URLs are replaced by `***`.
public struct LoggingInterceptor: Interceptor {
    /// Where the lines go.
    public let logger: Logger
    /// The level of the request and response lines.
    public let level: Logger.Level
    /// Header names whose values are never logged, besides the credential headers.
    public let redactedHeaders: Set<String>
    /// How many bytes of a text body are logged at debug level.
    public let bodyPreviewLimit: Int

    /// The headers whose values are always redacted.
    public static let credentialHeaders: Set<String> = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]

    /// Creates the interceptor.
    public init(
        logger: Logger = Logger(label: "sluice"), level: Logger.Level = .info, redactedHeaders: Set<String> = [],
        bodyPreviewLimit: Int = 1024
    ) {
        self.logger = logger
        self.level = level
        self.redactedHeaders = redactedHeaders
        self.bodyPreviewLimit = bodyPreviewLimit
    }

    /// Logs `request`, proceeds, and logs how it ended.
    public func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        guard logger.logLevel <= level || logger.logLevel <= .debug else { return chain.proceed(request) }
        let line = "\(request.method.rawValue) \(CurlShell.redactingPassword(in: request.url.absoluteString))"
        let this = self
        return SignalProducer { observer, lifetime in
            let started = ContinuousClock.now
            // The response whose end is still to be logged (a streaming body ends after it arrives).
            let pending = Mutex<Response?>(nil)
            let finished = Atomic(false)
            this.logger.log(level: this.level, "→ \(line)")
            if this.logger.logLevel <= .debug {
                this.logger.debug("→ headers \(this.describe(request.headers))")
                if case .data(let body) = request.body,
                    let text = this.preview(body, type: request.headers["Content-Type"])
                {
                    this.logger.debug("→ body \(text)")
                }
            }
            @Sendable func logEnd(_ response: Response, metrics: TransferMetrics?) {
                finished.store(true, ordering: .relaxed)
                let size = Self.size(max(Int64(response.body.count), metrics?.bytesReceived ?? 0))
                // A redirected request ends at another URL: the line names the one that answered.
                let final = response.request
                let answered =
                    final.url == request.url && final.method == request.method
                    ? line
                    : "\(final.method.rawValue) \(CurlShell.redactingPassword(in: final.url.absoluteString))"
                        + " (redirected from \(CurlShell.redactingPassword(in: request.url.absoluteString)))"
                this.logger.log(
                    level: this.level, "← \(response.status) \(answered) \(Self.milliseconds(since: started)), \(size)")
                if this.logger.logLevel <= .debug,
                    let text = this.preview(response.body, type: response.headers["Content-Type"])
                {
                    this.logger.debug("← body \(text)")
                }
            }
            lifetime += chain.proceed(request).start { event in
                switch event {
                case .value(let response):
                    if this.logger.logLevel <= .debug {
                        this.logger.debug("← headers \(response.status) \(this.describe(response.headers))")
                    }
                    switch response.content {
                    case .collected: logEnd(response, metrics: response.metrics)
                    case .streaming: pending.withLock { $0 = response }
                    }
                case .completed:
                    if let response = pending.withLock({ $0.take() }), case .streaming(let chunks) = response.content {
                        logEnd(response, metrics: chunks.metrics)
                    }
                case .failed(let error):
                    this.logger.log(
                        level: max(this.level, .warning), "✗ \(line) \(Self.milliseconds(since: started)): \(error)")
                case .interrupted:
                    // A caller that stops listening once the response is complete (`.value`
                    // does) interrupts a transfer that has already finished: not a cancellation.
                    if finished.load(ordering: .relaxed) { break }
                    this.logger.log(level: this.level, "✗ \(line) cancelled after \(Self.milliseconds(since: started))")
                }
                observer.send(event)
            }
        }
    }

    func describe(_ headers: HTTPHeaders) -> String {
        let secret = Self.credentialHeaders.union(RedirectPolicy.secretHeaders).union(redactedHeaders)
        let fields = headers.map { field in
            let hidden = secret.contains { field.name.caseInsensitiveEquals($0) }
            return "\(field.name): \(hidden ? "***" : field.value)"
        }
        return "[" + fields.joined(separator: ", ") + "]"
    }

    /// The first bytes of a body when it is text (by its content type, or valid UTF-8 when untyped).
    func preview(_ body: Data, type: String?) -> String? {
        guard !body.isEmpty else { return nil }
        let lowered = type?.lowercased() ?? ""
        let isText =
            lowered.isEmpty || lowered.hasPrefix("text/") || lowered.contains("json") || lowered.contains("xml")
            || lowered.contains("x-www-form-urlencoded")
        guard isText, let text = String(data: body.prefix(bodyPreviewLimit), encoding: .utf8) else { return nil }
        return body.count > bodyPreviewLimit ? text + "…" : text
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        // A tie goes to the even number, as `%.0f` printed it.
        return "\(Int((max(0, elapsed.timeInterval) * 1000).rounded(.toNearestOrEven))) ms"
    }

    static func size(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1 << 20 { return oneDecimal(Double(bytes) / 1024) + " KB" }
        return oneDecimal(Double(bytes) / 1_048_576) + " MB"
    }

    /// A non-negative number with one decimal (`1.5`), as `%.1f` would print it; no `String(format:)`,
    /// which is not in FoundationEssentials. Like `%.1f`, a tie goes to the even digit (1.25 KB, that
    /// is 1280 bytes, is `1.2`); sizes are exact binary fractions, so times ten is exact too.
    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded(.toNearestOrEven))
        return "\(tenths / 10).\(tenths % 10)"
    }
}

extension Interceptor where Self == LoggingInterceptor {
    /// Logs requests and responses through swift-log (see `LoggingInterceptor`).
    public static func logging(
        _ logger: Logger = Logger(label: "sluice"), level: Logger.Level = .info, redactedHeaders: Set<String> = []
    ) -> LoggingInterceptor {
        LoggingInterceptor(logger: logger, level: level, redactedHeaders: redactedHeaders)
    }
}
