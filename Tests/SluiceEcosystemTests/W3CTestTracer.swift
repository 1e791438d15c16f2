import InMemoryTracing
import Sluice
import Tracing
import W3CTraceContext

/// The tests' tracer: InMemoryTracer's spans, with W3C trace and span IDs, their context
/// propagated as a `traceparent` header, as swift-otel's W3C propagator does.
struct W3CTestTracer: Tracer {
    let recorder = InMemoryTracer(
        idGenerator: InMemoryTracer.IDGenerator(
            nextTraceID: { TraceID.random().description }, nextSpanID: { SpanID.random().description }))

    var finishedSpans: [FinishedInMemorySpan] { recorder.finishedSpans }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        recorder.startSpan(
            operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID,
            line: line)
    }

    func forceFlush() {}

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {}

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }
}
