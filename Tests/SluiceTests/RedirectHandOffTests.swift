import Dispatch
import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceSignals
import Synchronization
import Testing

/// A transport whose `/start` answers 302 to `/final` once `go` is signalled, from another thread,
/// and runs `hook` while its gate delivers that hop's `completed`: after the gate has counted
/// itself terminated, before the redirect interceptor sees the event.
private final class HandOffTransport: Transport {
    let hook = Lock<(@Sendable () -> Void)?>(nil)
    let go = DispatchSemaphore(value: 0)

    func transfer(_ request: PreparedRequest) -> SignalProducer<TransferEvent, SluiceError> {
        SignalProducer(error: SluiceError(.cancelled, "Only whole responses are served."))
    }

    func response(for request: PreparedRequest, control: TransferControl?, monitor: TransferMonitor?)
        -> SignalProducer<Response, SluiceError>
    {
        let isFirst = request.request.url.path == "/start"
        let go = self.go
        return SignalProducer<Response, SluiceError> { observer, _ in
            DispatchQueue.global().async {
                if isFirst { go.wait() }
                observer.send(
                    value: Response(
                        status: isFirst ? 302 : 200, headers: isFirst ? ["Location": "/final"] : [:],
                        metrics: TransferMetrics(), request: request.request))
                observer.sendCompleted()
            }
        }
        .lift { [self] downstream, _ in
            Observer { event in
                if isFirst, case .completed = event { self.hook.withLock { $0 }?() }
                downstream.send(event)
            }
        }
    }
}

/// A caller who leaves just as a redirect hands over to its next hop: the previous hop's gate can
/// no longer interrupt, so the redirect interceptor must (a regression found in review).
@Suite("Redirect hand-off")
struct RedirectHandOffTests {
    @Test func disposingDuringTheHandOffDeliversOneInterruption() async throws {
        let transport = HandOffTransport()
        let client = try Client(baseURL: "http://example.test", transport: transport)
        let events = Mutex<[Event<Response, SluiceError>]>([])
        let disposable = client.get("http://example.test/start").start { event in
            events.withLock { $0.append(event) }
        }
        // Another thread disposes while the first hop's gate delivers its `completed`.
        transport.hook.withLock {
            $0 = {
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    disposable.dispose()
                    done.signal()
                }
                done.wait()
            }
        }
        transport.go.signal()
        try await Task.sleep(for: .milliseconds(500))
        let seen = events.withLock { $0 }
        #expect(seen.count == 1, "exactly one event: \(seen)")
        if case .interrupted = seen.first {} else { Issue.record("interrupted, not \(seen)") }
    }

    @Test func cancellingAnAwaitDuringTheHandOffResumesIt() async throws {
        let transport = HandOffTransport()
        let client = try Client(baseURL: "http://example.test", transport: transport)
        let task = Task { try await client.get("http://example.test/start").value }
        let cancelled = Atomic(false)
        transport.hook.withLock {
            $0 = {
                task.cancel()
                cancelled.store(true, ordering: .releasing)
            }
        }
        // The first hop answers only once `go` is signalled, which is after the hook is in place:
        // however late the task starts its request, the cancellation lands in the hand-off.
        transport.go.signal()
        let finished = Atomic(false)
        Task {
            _ = await task.result
            finished.store(true, ordering: .releasing)
        }
        // A lost resume hangs forever; the bound only turns that into a failure. It is far beyond
        // what a healthy machine takes, though in a full run the few jobs that resume the task wait
        // behind every other test's on the cooperative threads: over ten seconds on two cores.
        try await eventually("the awaiting task resumes", timeout: .seconds(120)) {
            finished.load(ordering: .acquiring)
        }
        let cancelledInTheHandOff = cancelled.load(ordering: .acquiring)
        #expect(cancelledInTheHandOff, "the task was cancelled during the hand-off")
        switch await task.result {
        case .success(let response): Issue.record("the cancelled task received a response: \(response.status)")
        case .failure(let error): #expect((error as? SluiceError)?.code == .cancelled, "\(error)")
        }
    }
}
