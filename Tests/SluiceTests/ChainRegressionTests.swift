import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Synchronization
import Testing

/// A scheduler that only collects actions, so a test can run one after its wait was cancelled: the
/// race of a timer that fires while the caller disposes.
final class CollectingScheduler: DateScheduler {
    let actions = Lock<[@Sendable () -> Void]>([])
    var currentDate: Date { Date(timeIntervalSince1970: 1_000_000) }

    func schedule(_ action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        actions.withLock { $0.append(action) }
        return AnyDisposable()
    }

    func schedule(after date: Date, action: @escaping @Sendable () -> Void) -> (any Disposable)? {
        schedule(action)
    }
}

/// A transport whose transfers never answer; it counts starts and cancellations.
final class HangingTransport: Transport {
    let started = Atomic(0)
    let cancelled = Atomic(0)

    func transfer(_ request: PreparedRequest) -> SignalProducer<TransferEvent, SluiceError> {
        SignalProducer { [self] _, lifetime in
            started.wrappingAdd(1, ordering: .relaxed)
            lifetime.observeEnded { [self] in cancelled.wrappingAdd(1, ordering: .relaxed) }
        }
    }
}

/// Edge cases found in review of the chain and the task events, each kept as a regression test.
@Suite("Chain edge cases")
struct ChainRegressionTests {
    @Test func aRetryAfterDateCenturiesAheadWaitsTheCapInsteadOfCrashing() {
        let head = ResponseHead(
            status: 503, headers: ["Retry-After": "Fri, 31 Dec 9999 23:59:59 GMT"], httpVersion: .http1_1)
        #expect(RetryPolicy().delay(after: .response(head), attempt: 1, method: .get) == .seconds(60))
        #expect(Duration.timeInterval(.infinity) > .seconds(9_000_000_000))
        #expect(Duration.timeInterval(.nan) == .zero)
        var huge = RetryPolicy(maxAttempts: 100, baseDelay: .seconds(1), maxDelay: .seconds(Int64.max / 2))
        huge.jitter = .none
        #expect(huge.backoff(afterAttempt: 90) > .zero)
    }

    @Test func defaultHeadersThatAreSecretStayOnTheOriginalOrigin() async throws {
        let stub = StubTransport { request in
            request.url.host == "a.example"
                ? .response(status: 302, headers: ["Location": "https://elsewhere.example/landing"])
                : .response(status: 200)
        }
        var configuration = Client.Configuration()
        configuration.defaultHeaders["X-Api-Key"] = "secret-key"
        configuration.defaultHeaders["Authorization"] = "Bearer default-secret"
        configuration.defaultHeaders["Cookie"] = "session=1"
        configuration.redirectPolicy = RedirectPolicy(sensitiveHeaders: ["X-Api-Key"])
        let client = try Client(baseURL: "https://a.example/", configuration: configuration, transport: stub)
        _ = try await client.get("start").value
        let requests = stub.requests
        try #require(requests.count == 2)
        for name in ["X-Api-Key", "Authorization", "Cookie"] {
            #expect(requests[0].headers[name] != nil, "\(name) goes to the original origin")
            #expect(requests[1].headers[name] == nil, "\(name) must not reach another origin")
        }
        #expect(requests[1].headers["User-Agent"] != nil, "harmless defaults still go everywhere")
    }

    @Test func suspendAndResumeReachTheClientsEventsAndStateIsRunning() throws {
        let client = try Client(baseURL: "https://a.example/", transport: HangingTransport())
        let log = EventLog(client)
        let task = try client.task(.get, "slow")
        task.resume()
        #expect(task.state.value == .running)
        task.suspend()
        #expect(task.state.value == .suspended)
        task.resume()
        task.cancel()
        #expect(task.state.value == .cancelled)
        task.resume()
        task.suspend()
        #expect(task.state.value == .cancelled, "a finished task stays finished")
        #expect(log.names == ["created", "resumed", "suspended", "resumed", "cancelled"])
    }

    @Test func aCancelThatArrivesWhileTheTaskStartsIsNotLost() throws {
        final class Slot: @unchecked Sendable {
            // Written once before the task starts, read on the same thread while it starts.
            var task: RequestTask?
        }
        struct CancelsWhileStarting: Interceptor {
            let slot: Slot
            func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
                slot.task?.cancel()
                return chain.proceed(request)
            }
        }
        let slot = Slot()
        let transport = HangingTransport()
        let client = try Client(
            baseURL: "https://a.example/", interceptors: [CancelsWhileStarting(slot: slot)], transport: transport)
        let task = try client.task(.get, "slow")
        slot.task = task
        task.resume()
        #expect(transport.started.load(ordering: .relaxed) == transport.cancelled.load(ordering: .relaxed))
        #expect(task.state.value == .cancelled)
        #expect(client.inFlightCount == 0)
    }

    @Test func aBackoffTimerThatFiresAsTheCallerLeavesSendsNothing() throws {
        let stub = StubTransport(reply: .response(status: 503))
        let scheduler = CollectingScheduler()
        var configuration = Client.Configuration()
        configuration.retryPolicy = RetryPolicy(jitter: .none)
        configuration.scheduler = scheduler
        let client = try Client(baseURL: "https://a.example/", configuration: configuration, transport: stub)
        let disposable = client.get("x").start()
        try #require(stub.requests.count == 1)
        disposable.dispose()
        for action in scheduler.actions.withLock({ $0 }) { action() }
        #expect(stub.requests.count == 1)
    }

    @Test func aFourHundredOneFromAnotherOriginRefreshesNothing() async throws {
        let stub = StubTransport { request in
            request.url.host == "a.example"
                ? .response(status: 302, headers: ["Location": "https://other.example/x"]) : .response(status: 401)
        }
        let refreshes = Atomic(0)
        let client = try Client(
            baseURL: "https://a.example/",
            interceptors: [
                .bearer(
                    token: { "t1" },
                    refresh: {
                        refreshes.wrappingAdd(1, ordering: .relaxed)
                        return "t2"
                    })
            ],
            transport: stub)
        #expect(try await client.get("start").value.status == 401)
        #expect(refreshes.load(ordering: .relaxed) == 0)
        #expect(stub.requests.count == 2)
    }

    @Test func aSerializedRequestLeftBeforeTheSerializerRanClosesItsTask() async throws {
        let stub = StubTransport(reply: .response(status: 200, body: Data("hi".utf8)))
        let client = try Client(baseURL: "https://a.example/", transport: stub)
        let log = EventLog(client)
        let gate = DispatchSemaphore(value: 0)
        Serialization.queue.schedule { gate.wait() }  // holds the serializer back
        let disposable = client.get("x").string().start()  // string() runs on the queue; data() needs no hop
        disposable.dispose()
        gate.signal()
        try await eventually("the task closes") { log.names.last == "cancelled" }
    }

    @Test func aValidationFailureIsTheTasksError() async throws {
        let stub = StubTransport(reply: .response(status: 404))
        let client = try Client(baseURL: "https://a.example/", transport: stub)
        let log = EventLog(client)
        _ = try? await client.get("x").validate().data().value
        try await eventually("completed") { log.names.last?.hasPrefix("completed") == true }
        #expect(log.names.last == "completed unacceptableStatusCode")
    }

    @Test func theOfflineRetrierNeverResendsAPostThatWasAnswered() async throws {
        let status = MutableProperty(ReachabilityStatus.unreachable)
        let gets = Atomic(0)
        let stub = StubTransport { request in
            if request.method == .post { return .response(status: 303, headers: ["Location": "/orders/1"]) }
            return gets.wrappingAdd(1, ordering: .relaxed).oldValue == 0
                ? .failure(SluiceError(.cannotConnect, "network down")) : .response(status: 200)
        }
        let client = try Client(
            baseURL: "https://a.example/", interceptors: [OfflineRetryInterceptor(status: status.readOnly)],
            transport: stub)
        let request = Request(
            method: .post, url: URL(string: "https://a.example/orders")!, body: .data(Data("order".utf8)))
        do throws(SluiceError) {
            _ = try await client.send(request).value
            Issue.record("the GET's error is delivered")
        } catch {
            #expect(error.code == .cannotConnect)
        }
        #expect(stub.requests.filter { $0.method == .post }.count == 1)
    }

    @Test func aCustomRedirectHandlerCannotSendToARefusedScheme() async throws {
        var configuration = Client.Configuration()
        configuration.redirectPolicy = .custom { redirect in
            var next = redirect.next
            next.url = URL(string: "ftp://a.example/file")!
            return .follow(next)
        }
        let stub = StubTransport(reply: .response(status: 302, headers: ["Location": "/b"]))
        let client = try Client(baseURL: "http://a.example/", configuration: configuration, transport: stub)
        do throws(SluiceError) {
            _ = try await client.get("a").value
            Issue.record("refused")
        } catch {
            #expect(error.code == .redirectFailed)
        }
    }
}
