import Foundation
import InMemoryTracing
import Sluice
import SluiceTesting
import SluiceTracing
import Testing
import Tracing
import W3CTraceContext

@Suite struct TracingInterceptorTests {
    @Test func aRequestGetsASpanAndCarriesItsContextToTheServer() async throws {
        try await withServer { server, transport in
            let tracer = W3CTestTracer()
            let client = try Client(interceptors: [TracingInterceptor(tracer: tracer)], transport: transport)
            let url = server.url(for: .echo, query: [URLQueryItem(name: "api_key", value: "s3cret")])
            let reply = try echo(of: try await client.get(url.absoluteString).value)

            let span = try #require(tracer.finishedSpans.only)
            #expect(span.operationName == "GET")
            #expect(span.kind == .client)
            #expect(span.attributes["http.request.method"]?.toSpanAttribute() == .string("GET"))
            #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
            #expect(span.attributes["server.address"]?.toSpanAttribute() == .string(server.host))
            #expect(span.attributes["server.port"]?.toSpanAttribute() == .int64(Int64(server.port)))
            let full = try #require(span.attributes["url.full"]?.toSpanAttribute())
            #expect(full == .string("\(server.baseURL.absoluteString)echo?api_key=REDACTED"))
            #expect(span.status == nil)

            // The server received the span's context as a W3C traceparent it can parse.
            let header = try #require(reply.header("traceparent"))
            let context = try TraceContext(traceParentHeaderValue: header)
            #expect(context.traceID.description == span.traceID)
            #expect(context.spanID.description == span.spanID)
        }
    }

    @Test func retriesAndRedirectsAreEventsOfOneSpan() async throws {
        try await withServer { server, transport in
            let tracer = W3CTestTracer()
            var configuration = Client.Configuration()
            configuration.retryPolicy = RetryPolicy(baseDelay: .zero, jitter: .none)
            let client = try Client(
                configuration: configuration, interceptors: [TracingInterceptor(tracer: tracer)], transport: transport)
            let target = server.url(for: .flaky(key: "traced", failures: 1, status: 503))
            let start = server.url(for: .redirect(status: 302, to: target))
            let response = try await client.get(start.absoluteString).value
            #expect(response.status == 200)

            let span = try #require(tracer.finishedSpans.only)
            // The retry sends the request again from the top: its redirect too.
            #expect(span.events.map(\.name) == ["http.redirect", "http.retry", "http.redirect"])
            #expect(span.events[0].attributes["http.response.status_code"]?.toSpanAttribute() == .int64(302))
            #expect(span.events[1].attributes["http.request.resend_count"]?.toSpanAttribute() == .int64(1))
            #expect(span.attributes["http.request.resend_count"]?.toSpanAttribute() == .int64(1))
            #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
            // Every hop carried the same span's context.
            let traceparents = server.recordedRequests.compactMap { $0.headers["traceparent"] }
            #expect(traceparents.count == 4)
            #expect(Set(traceparents).count == 1)
        }
    }

    @Test func aFailureIsTheSpansErrorAndAnErrorStatusToo() async throws {
        try await withServer { server, transport in
            let tracer = W3CTestTracer()
            let client = try Client(interceptors: [TracingInterceptor(tracer: tracer)], transport: transport)
            let notFound = try await client.get(server.url(for: .status(404)).absoluteString).value
            #expect(notFound.status == 404)
            try await RefusedAddress.withBaseURL { gone in
                await #expect(throws: SluiceError.self) { try await client.get(gone.absoluteString).value }
            }

            let spans = tracer.finishedSpans
            #expect(spans.count == 2)
            #expect(spans[0].attributes["error.type"]?.toSpanAttribute() == .string("404"))
            #expect(spans[0].status?.code == .error)
            #expect(spans[1].attributes["error.type"]?.toSpanAttribute() == .string("cannotConnect"))
            #expect(spans[1].status?.code == .error)
            #expect(spans[1].errors.count == 1)
        }
    }

    @Test func aCancelledRequestEndsItsSpan() async throws {
        try await withServer { server, transport in
            let tracer = W3CTestTracer()
            let client = try Client(interceptors: [TracingInterceptor(tracer: tracer)], transport: transport)
            let disposable = client.get(server.url(for: .delay(.seconds(10))).absoluteString).start()
            try await Task.sleep(for: .milliseconds(200))
            disposable.dispose()
            let span = try #require(tracer.finishedSpans.only)
            #expect(span.attributes["error.type"]?.toSpanAttribute() == .string("cancelled"))
        }
    }

    @Test func theCallersSpanIsTheParent() async throws {
        try await withServer { server, transport in
            let tracer = W3CTestTracer()
            let client = try Client(interceptors: [TracingInterceptor(tracer: tracer)], transport: transport)
            try await tracer.withSpan("work") { _ in
                _ = try await client.get(server.url(for: .echo).absoluteString).value
            }
            let spans = tracer.finishedSpans
            let request = try #require(spans.first { $0.operationName == "GET" })
            let work = try #require(spans.first { $0.operationName == "work" })
            #expect(request.traceID == work.traceID)
            #expect(request.spanContext.parentSpanID == work.spanID)
        }
    }

    @Test func aTracerBoundToTheTaskIsUsed() async throws {
        try await withServer { server, transport in
            let tracer = W3CTestTracer()
            let client = try Client(interceptors: [TracingInterceptor()], transport: transport)
            let reply = try await withTracer(tracer) {
                try echo(of: try await client.get(server.url(for: .echo).absoluteString).value)
            }
            #expect(reply.header("traceparent") != nil)
            #expect(tracer.finishedSpans.count == 1)
        }
    }

    @Test func withoutATracerRequestsPassUnchanged() async throws {
        try await withServer { server, transport in
            // Nothing is bootstrapped in this process, and no tracer is bound to the task.
            #expect(InstrumentationSystem.tracer is NoOpTracer)
            let client = try Client(interceptors: [TracingInterceptor()], transport: transport)
            let reply = try echo(of: try await client.get(server.url(for: .echo).absoluteString).value)
            #expect(reply.header("traceparent") == nil)
        }
    }
}

extension Array {
    /// The one element, or nil when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}
