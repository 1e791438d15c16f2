import Foundation
import Sluice
import SluiceTesting
import Synchronization
import Testing

/// Completion-style callers hear about every ending, cancellations included (`startWithCompletion`),
/// whoever cancels: the caller's disposal, or `Client.cancelAll`.
@Suite("Completion callbacks")
struct CompletionCallbackTests {
    private final class Outcomes: Sendable {
        let results = Mutex<[Result<Response, SluiceError>]>([])
        func record(_ result: Result<Response, SluiceError>) { results.withLock { $0.append(result) } }
        var count: Int { results.withLock { $0.count } }
        var errorCode: SluiceError.Code? {
            results.withLock { $0.first }.flatMap { if case .failure(let error) = $0 { error.code } else { nil } }
        }
    }

    @Test func aResponseCallsTheHandlerOnceWithTheResponse() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let outcomes = Outcomes()
            _ = client.get("status/200").startWithCompletion(outcomes.record)
            try await eventually("the handler runs") { outcomes.count == 1 }
            guard case .success(let response) = outcomes.results.withLock({ $0[0] }) else {
                Issue.record("a success")
                return
            }
            #expect(response.status == 200)
        }
    }

    @Test func disposingCallsTheHandlerWithCancelled() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let outcomes = Outcomes()
            let request = client.get(server.url(for: .delay(.seconds(60))).absoluteString)
                .startWithCompletion(outcomes.record)
            try await eventually("the request reaches the server") { !server.requests(to: "/delay/60000").isEmpty }
            request.dispose()
            try await eventually("the handler runs") { outcomes.count == 1 }
            #expect(outcomes.errorCode == .cancelled)
        }
    }

    @Test func cancelAllReachesCompletionHandlers() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let outcomes = Outcomes()
            // A result handler still hears nothing of a cancellation (the stream contract)…
            let results = Mutex(0)
            _ = client.get(server.url(for: .delay(.seconds(60))).absoluteString)
                .startWithResult { _ in results.withLock { $0 += 1 } }
            // …a completion handler does.
            _ = client.get(server.url(for: .delay(.seconds(60))).absoluteString)
                .validate().startWithCompletion(outcomes.record)
            try await eventually("both requests are in flight") { server.requests(to: "/delay/60000").count == 2 }
            #expect(client.cancelAll() == 2)
            try await eventually("the handler runs") { outcomes.count == 1 }
            #expect(outcomes.errorCode == .cancelled)
            #expect(results.withLock { $0 } == 0)
        }
    }

    @Test func aFailureCallsTheHandlerWithTheError() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let outcomes = Outcomes()
            _ = client.get("status/404").validate().startWithCompletion(outcomes.record)
            try await eventually("the handler runs") { outcomes.count == 1 }
            #expect(outcomes.errorCode == .unacceptableStatusCode)
        }
    }

    @Test func aProducerThatCompletesEmptyCallsTheHandlerWithNoValue() async throws {
        let outcome = Mutex<Result<Int, SluiceError>?>(nil)
        SignalProducer<Int, SluiceError>.empty.startWithCompletion { result in outcome.withLock { $0 = result } }
        guard case .failure(let error) = try #require(outcome.withLock { $0 }) else {
            Issue.record("a failure")
            return
        }
        #expect(error.code == .noValue)
    }
}
