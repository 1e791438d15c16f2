import FoundationEssentials
import Sluice
import Synchronization
import Tracing

/// Opens a client span around each request, from the user's request to its last hop, and
/// injects the span's context into the request's headers through the tracer (a W3C
/// `traceparent` with swift-otel), so the server's spans join the trace.
///
/// Put it first in the chain, where it sees each request once, as the user made it; the retries
/// and redirect hops below it become events of the span (`http.retry`, `http.redirect`). The span
/// carries the HTTP semantic conventions: `http.request.method`, `url.full` (its secrets
/// redacted), `server.address`, `server.port`, `http.response.status_code`,
/// `http.request.resend_count` and, on failure, `error.type` with an error status.
///
///     InstrumentationSystem.bootstrap(tracer)  // once, at startup
///     let client = Client(interceptors: [TracingInterceptor()])
///
/// With no tracer given, it uses the one bootstrapped (or bound with `withTracer`) when each
/// request starts; with none, it passes requests straight on and costs one look-up.
public struct TracingInterceptor: Interceptor {
    /// The tracer, or nil for the `InstrumentationSystem`'s at each request.
    public let tracer: (any Tracer)?
    /// What the span's URL leaves out.
    public let redaction: Redaction

    /// An interceptor that traces with `tracer`, or with the `InstrumentationSystem`'s.
    public init(tracer: (any Tracer)? = nil, redaction: Redaction = .default) {
        self.tracer = tracer
        self.redaction = redaction
    }

    /// Traces `request` through the rest of `chain`.
    public func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        let tracer: any Tracer
        if let given = self.tracer {
            tracer = given
        } else {
            // Nothing bootstrapped or bound: one check of the instrument's type (60 ns measured),
            // before the search for a tracer among the instruments (200 ns).
            if InstrumentationSystem.instrument is NoOpInstrument { return chain.proceed(request) }
            tracer = InstrumentationSystem.tracer
            if tracer is NoOpTracer { return chain.proceed(request) }
        }
        // Read when the request starts, in the task or thread that starts it: its span is the parent.
        let parent = ServiceContext.current ?? .topLevel
        return traced(request, chain: chain, tracer: tracer, parent: parent)
    }

    private func traced(
        _ request: Request, chain: InterceptorChain, tracer: some Tracer, parent: ServiceContext
    ) -> SignalProducer<Response, SluiceError> {
        let redaction = self.redaction
        return SignalProducer { observer, lifetime in
            let span = tracer.startSpan(request.method.rawValue, context: parent, ofKind: .client)
            let ending = SpanEnding(span)
            span.attributes = HTTPSpanAttributes.request(request, redaction: redaction)
            var sent = request
            tracer.inject(span.context, into: &sent.headers, using: HTTPHeadersInjector())
            let resends = Atomic(0)
            let reports: InterceptorChain.ReportListener = { kind in
                switch kind {
                case .retried(let attempt):
                    resends.store(attempt.attempt - 1, ordering: .relaxed)
                    span.addEvent(HTTPSpanAttributes.retryEvent(attempt))
                case .redirected(let hop):
                    span.addEvent(HTTPSpanAttributes.redirectEvent(hop, redaction: redaction))
                default: break
                }
            }
            // Ended before a response arrived: cancelled. After one, the caller has what it asked
            // for, and the chain may let go of the subscription before it completes.
            lifetime.observeEnded { ending.end(cancelled: !ending.responded) }
            lifetime += chain.proceed(sent, reportingTo: reports).start { event in
                switch event {
                case .value(let response):
                    HTTPSpanAttributes.record(response, resends: resends.load(ordering: .relaxed), on: span)
                    ending.responded = true
                    observer.send(value: response)
                case .failed(let error):
                    HTTPSpanAttributes.record(error, resends: resends.load(ordering: .relaxed), on: span)
                    ending.end(cancelled: false)
                    observer.send(error: error)
                case .completed:
                    ending.end(cancelled: false)
                    observer.sendCompleted()
                case .interrupted:
                    ending.end(cancelled: !ending.responded)
                    observer.sendInterrupted()
                }
            }
        }
    }
}

/// Ends a span once, however the request ends first: its completion, its failure, or its
/// subscription's disposal (a cancelled request, which nothing else reports).
private final class SpanEnding<S: Span>: Sendable {
    private let span: S
    private let ended = Atomic(false)
    private let hasResponse = Atomic(false)

    init(_ span: S) { self.span = span }

    /// Whether a response has arrived.
    var responded: Bool {
        get { hasResponse.load(ordering: .acquiring) }
        set { hasResponse.store(newValue, ordering: .releasing) }
    }

    func end(cancelled: Bool) {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if cancelled {
            span.attributes["error.type"] = "cancelled"
            span.setStatus(SpanStatus(code: .error, message: "The request was cancelled."))
        }
        span.end()
    }
}

/// Writes trace context into a request's headers, replacing a field of the same name.
struct HTTPHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HTTPHeaders) {
        carrier.replaceOrAdd(name: key, value: value)
    }
}
