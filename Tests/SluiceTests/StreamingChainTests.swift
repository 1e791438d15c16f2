import Foundation
import SluiceTesting
import Synchronization
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// Records how each response it passes on holds its body.
private final class ContentSpy: Interceptor {
    let streamed = Mutex<[Bool]>([])
    func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        chain.proceed(request).on(value: { [self] response in
            if case .streaming = response.content {
                streamed.withLock { $0.append(true) }
            } else {
                streamed.withLock { $0.append(false) }
            }
        })
    }
}

/// Answers every request itself with a body it streams in three chunks, from another thread.
private struct StreamingAnswer: Interceptor {
    func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        SignalProducer { observer, _ in
            let chunks = ResponseChunks(control: nil)
            observer.send(
                value: Response(
                    head: ResponseHead(status: 200, headers: ["Content-Type": "text/plain"], httpVersion: .http1_1),
                    content: .streaming(chunks), request: request))
            Task.detached {
                for part in ["one ", "two ", "three"] { chunks.append(Data(part.utf8)) }
                chunks.finish(metrics: TransferMetrics())
                observer.sendCompleted()
            }
        }
    }
}

/// Streams take the same chain as every request: interceptors see a streaming body, redirects
/// and retries drop a response's body and stream the next one.
@Suite("Streaming through the chain")
struct StreamingChainTests {
    @Test func anInterceptorSeesAStreamingBodyForAStreamAndACollectedOneForSend() async throws {
        try await withServer { server, transport in
            let spy = ContentSpy()
            let client = try Client(baseURL: server.baseURL.absoluteString, interceptors: [spy], transport: transport)
            var received = 0
            for try await chunk in try client.stream("bytes/300000").values { received += chunk.count }
            #expect(received == 300_000)
            let whole = try await client.get("bytes/3000").value
            #expect(whole.body.count == 3_000)
            #expect(spy.streamed.withLock { $0 } == [true, false])
        }
    }

    @Test func aRedirectedStreamDeliversOnlyTheFinalHopsBody() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let target = server.url(for: .bytes(200_000))
            let start = server.url(for: .redirect(status: 302, to: target)).absoluteString
            var received = 0
            var iterator = try client.stream(start).values.makeAsyncIterator()
            while let chunk = try await iterator.next() { received += chunk.count }
            #expect(received == 200_000)
            #expect(iterator.head?.status == 200)
            #expect(server.requests(to: "/redirect").count == 1)
            #expect(server.requests(to: .bytes(200_000)).count == 1)
        }
    }

    @Test func aRetriedStreamDeliversOnlyTheLastAttemptsBody() async throws {
        try await withServer { server, transport in
            var configuration = Client.Configuration()
            configuration.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), jitter: .none)
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            let path = server.url(for: .flaky(key: "stream", failures: 1)).absoluteString
            let chunks = try await client.stream(path).producer.collect().value
            let body = String(decoding: chunks.reduce(Data(), +), as: UTF8.self)
            #expect(body == #"{"attempt":2,"failed":false,"key":"stream"}"#, "only the second attempt's body")
        }
    }

    @Test func aStreamingAnswerOfAnInterceptorIsCollectedForSend() async throws {
        let stub = StubTransport(reply: .response(status: 500))
        let client = try Client(baseURL: "https://a.example/", interceptors: [StreamingAnswer()], transport: stub)
        let response = try await client.get("x").validate().value
        #expect(response.body == Data("one two three".utf8))
        if case .collected = response.content {} else { Issue.record("the caller of send gets a collected body") }
        #expect(stub.requests.isEmpty)
        #expect(try await client.get("y").string().value == "one two three")
    }

    @Test func watchingTheClientsEventsStillReportsProgressOfACollectedResponse() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let kinds = Mutex<[String]>([])
            let watching = client.events.observeValues { event in
                let name: String
                switch event.kind {
                case .responseReceived: name = "head"
                case .downloadProgress: name = "progress"
                case .completed: name = "completed"
                default: name = "other"
                }
                kinds.withLock { $0.append(name) }
            }
            defer { watching.dispose() }
            let response = try await client.get("bytes/500000").value
            #expect(response.body.count == 500_000)
            try await eventually("the task completed") { kinds.withLock { $0.contains("completed") } }
            let seen = kinds.withLock { $0 }
            #expect(seen.first(where: { $0 != "other" }) == "head")
            #expect(seen.contains("progress"))
            #expect(seen.last == "completed")
        }
    }
}
