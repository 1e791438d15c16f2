import Dispatch
import Foundation
import Sluice
import SluiceTesting
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// `CurlTransport.response(for:)`: its transfer's token, not a general gate, decides between the
/// loop delivering the response and a disposal interrupting it. Whichever comes first ends the
/// stream; the other must send nothing.
@Suite("Collected responses under races")
struct CollectedResponseRaceTests {
    @Test func disposingMidBodyInterruptsOnceAndNothingFollows() async throws {
        try await withServer { server, transport in
            let request = try Request(
                url: server.url(for: .drip(bytes: 10_000, chunks: 200, interval: .milliseconds(50)))
            ).prepared()
            let recorder = ResponseEventLog()
            let disposable = transport.response(for: request).start(recorder.observer)
            // The server has the request and is dripping its body.
            try await eventually("the server has the request") {
                server.recordedRequests.contains { $0.path.hasPrefix("/drip") }
            }
            try await Task.sleep(for: .milliseconds(200))
            disposable.dispose()
            #expect(recorder.events.count == 1)
            #expect(recorder.terminal?.isInterrupted == true)
            // Nothing after it, although the loop would have had the body within 10 s.
            try await Task.sleep(for: .milliseconds(300))
            #expect(recorder.events.count == 1)
            // The transfer was let go: the same transport answers the next request.
            let next = try await transport.send(.get, server.url(for: .bytes(100)))
            #expect(next.body.count == 100)
        }
    }

    /// Disposals from another thread at every moment around the response's delivery: each stream
    /// ends exactly once, either with the response and `completed` or with `interrupted` alone.
    @Test func aDisposalRacingTheResponseEndsTheStreamExactlyOnce() async throws {
        try await withServer { server, transport in
            let request = try Request(url: server.url(for: .bytes(100))).prepared()
            // Disposals 0–3 ms after the start: a request takes about 1 ms here, so both sides win
            // rounds in a plain run (in two, 250 and 243 responses, 50 and 57 interruptions); under
            // the thread sanitizer, or with the whole suite running, the disposal wins more often.
            // Every tenth round disposes on the starting thread at once, before the loop has the
            // transfer.
            var random = SplitMix64(state: 0x5EED_0001)
            var delivered = 0
            var interrupted = 0
            for round in 0..<300 {
                let recorder = ResponseEventLog()
                let delay = round % 10 == 0 ? 0 : random.next() % 3_000
                let disposable = transport.response(for: request).start(recorder.observer)
                if delay == 0 { disposable.dispose() }
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    DispatchQueue.global().async {
                        usleep(useconds_t(delay))
                        disposable.dispose()
                        continuation.resume()
                    }
                }
                // A loop that won the race may still be delivering as the disposal returns (slowly,
                // under the thread sanitizer): the stream is read once it has ended.
                try await eventually("round \(round): the stream ends", timeout: .seconds(5)) {
                    recorder.terminal != nil
                }
                let events = recorder.events
                let kinds = events.map(ResponseEventLog.kind)
                switch kinds {
                case ["value", "completed"]:
                    delivered += 1
                    #expect(events.first?.value?.body.count == 100, "round \(round)")
                case ["interrupted"]:
                    interrupted += 1
                default:
                    Issue.record("round \(round): \(kinds)")
                }
            }
            #expect(delivered + interrupted == 300, "\(delivered) delivered, \(interrupted) interrupted")
            // Interrupted transfers were let go: the transport still answers.
            let next = try await transport.send(.get, server.url(for: .bytes(100)))
            #expect(next.body.count == 100)
        }
    }
}

/// The token alone, with a command queue and no loop: the orders a test over the network cannot
/// choose (a disposal between the loop finishing a transfer and delivering its response).
@Suite("Transfer token as a response's gate")
struct TransferTokenGateTests {
    private let response = Response(
        status: 200, headers: [:], httpVersion: .http1_1, body: Data("ok".utf8), fileURL: nil, metrics: nil,
        request: Request(url: URL(string: "http://127.0.0.1/")!))

    /// A token for transfer 7 of a queue that no loop serves, its subscriber logged.
    private func makeToken() -> (TransferToken, CommandQueue, ResponseEventLog) {
        let queue = CommandQueue()
        let log = ResponseEventLog()
        return (TransferToken(id: 7, queue: queue, subscriber: log.observer), queue, log)
    }

    @Test func aResponseDeliveredFirstLeavesTheDisposalNothingToSend() {
        let (token, queue, log) = makeToken()
        token.markFinished()
        token.deliver(.success(response))
        token.dispose()
        #expect(log.events.map(ResponseEventLog.kind) == ["value", "completed"])
        // Finished: no cancel command for the loop.
        #expect(queue.takeCommands().isEmpty)
    }

    @Test func aDisposalAfterTheLoopFinishedStillWinsOverTheDelivery() {
        // The loop has let go of the transfer, then the subscriber disposes before the response
        // goes out: `interrupted` alone, and the response is dropped.
        let (token, queue, log) = makeToken()
        token.markFinished()
        token.dispose()
        token.deliver(.success(response))
        token.deliver(.failure(SluiceError(.cancelled, "late")))
        #expect(log.events.map(ResponseEventLog.kind) == ["interrupted"])
        #expect(queue.takeCommands().isEmpty)
    }

    @Test func aDisposalBeforeTheLoopFinishedInterruptsAndCancels() {
        let (token, queue, log) = makeToken()
        token.dispose()
        token.dispose()
        #expect(log.events.map(ResponseEventLog.kind) == ["interrupted"])
        let sent = queue.takeCommands()
        #expect(sent.count == 1)
        if case .cancel(let id) = sent.first { #expect(id == 7) } else { Issue.record("\(sent)") }
        // The loop, coming to the transfer later, does not begin it.
        #expect(token.isFinishedOrDisposed)
    }

    @Test func aDeliveryAndADisposalOnTwoThreadsEndTheStreamOnce() async {
        var outcomes: [String: Int] = [:]
        for _ in 0..<2_000 {
            let (token, _, log) = makeToken()
            token.markFinished()
            let response = self.response
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let group = DispatchGroup()
                DispatchQueue.global().async(group: group) { token.deliver(.success(response)) }
                DispatchQueue.global().async(group: group) { token.dispose() }
                group.notify(queue: .global()) { continuation.resume() }
            }
            let kinds = log.events.map(ResponseEventLog.kind).joined(separator: ",")
            outcomes[kinds, default: 0] += 1
        }
        #expect(Set(outcomes.keys).isSubset(of: ["value,completed", "interrupted"]), "\(outcomes)")
    }
}

/// Every event of one subscription, in order.
final class ResponseEventLog: Sendable {
    private let log = Lock<[Event<Response, SluiceError>]>([])

    var observer: Observer<Response, SluiceError> { Observer { event in self.log.withLock { $0.append(event) } } }
    var events: [Event<Response, SluiceError>] { log.withLock { $0 } }
    var terminal: Event<Response, SluiceError>? { events.last.flatMap { $0.isTerminating ? $0 : nil } }

    static func kind(_ event: Event<Response, SluiceError>) -> String {
        switch event {
        case .value: return "value"
        case .failed(let error): return "failed: \(error)"
        case .completed: return "completed"
        case .interrupted: return "interrupted"
        }
    }
}
