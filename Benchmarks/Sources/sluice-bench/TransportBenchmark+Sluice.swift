import BenchChild
import Dispatch
import Foundation
import Sluice
import Synchronization

/// The ways a Sluice user runs many small GETs, each one measured run of `count` requests.
struct SluiceWorkloads: Sendable {
    /// One small GET, as `transport.response(for:)` gives it: started afresh by every start.
    let response: SignalProducer<Response, SluiceError>

    /// `lanes` chains of requests, each request started from the terminal event of the one before
    /// it in its lane, which the transport's loop thread delivers: the loop takes the new request
    /// before it polls again, so no thread is woken between two requests.
    func chains(_ count: Int, lanes: Int) -> Sample {
        let run = SluiceRun(total: count)
        let response = self.response
        /// Starts one request; its terminal event starts the next one while any are left.
        @Sendable func launch() {
            response.start { event in
                switch event {
                case .value(let response): run.record(response)
                case .failed(let error): run.record(error)
                case .completed, .interrupted: break
                }
                if event.isTerminating, run.finishOne() { launch() }
            }
        }
        let first = run.claim(upTo: lanes)
        let start = Measure.now()
        for _ in 0..<first { launch() }
        run.wait()
        return run.sample(elapsed: Measure.now() &- start)
    }

    /// `count` requests awaited one after the other in a `for` loop in a task: the natural async
    /// form, where every response hops from the loop thread to the task's executor.
    func awaitLoop(_ count: Int) -> Sample {
        let run = SluiceRun(total: count)
        let response = self.response
        let start = Measure.now()
        Task.detached {
            for _ in 0..<count {
                do {
                    run.record(try await response.value)
                } catch {
                    run.record(error)
                }
                _ = run.finishOne()
            }
        }
        run.wait()
        return run.sample(elapsed: Measure.now() &- start)
    }

    /// `count` requests made by `flatMap` from a producer of `count` values, run as `strategy` says.
    func flattened(_ count: Int, strategy: FlattenStrategy) -> Sample {
        let run = SluiceRun(total: count)
        let response = self.response
        let start = Measure.now()
        let disposable = SignalProducer<Int, SluiceError>(values: 0..<count)
            .flatMap(strategy) { _ in response }
            .start { event in
                switch event {
                case .value(let response):
                    run.record(response)
                    _ = run.finishOne()
                case .failed(let error):
                    run.record(error)
                    run.giveUp()
                case .completed, .interrupted:
                    run.giveUp()
                }
            }
        run.wait()
        let elapsed = Measure.now() &- start
        disposable.dispose()
        return run.sample(elapsed: elapsed)
    }
}

/// What one measured Sluice run has done so far, and the signal that it is over.
///
/// Observers of different requests may run on different threads (the loop thread, a task's
/// executor), so the tallies sit behind a mutex; its cost is a few tens of nanoseconds per
/// request, against tens of microseconds for the request.
final class SluiceRun: Sendable {
    private struct State {
        var started = 0
        var finished = 0
        var succeeded = 0
        var bytes = 0
        var failures = 0
        var firstFailure: String?
        var isOver = false
    }

    private let total: Int
    private let state = Mutex(State())
    private let done = DispatchSemaphore(value: 0)

    /// A run of `total` requests.
    init(total: Int) { self.total = total }

    /// Counts `count` requests (at most what is left) as started; returns how many that is.
    func claim(upTo count: Int) -> Int {
        state.withLock { s in
            let claimed = min(count, total - s.started)
            s.started += claimed
            return claimed
        }
    }

    /// Records a response: a success if its status is 200.
    func record(_ response: Response) {
        let status = response.status
        let bytes = response.body.count
        state.withLock { s in
            if status == 200 {
                s.succeeded += 1
                s.bytes &+= bytes
            } else {
                s.failures += 1
                if s.firstFailure == nil { s.firstFailure = "status \(status)" }
            }
        }
    }

    /// Records a failed request.
    func record(_ error: any Error) {
        state.withLock { s in
            s.failures += 1
            if s.firstFailure == nil { s.firstFailure = "\(error)" }
        }
    }

    /// Counts one request as finished and claims the next one; true if the caller must start it.
    /// Signals the end of the run when the last request has finished.
    func finishOne() -> Bool {
        let (startAnother, isLast) = state.withLock { s -> (Bool, Bool) in
            s.finished += 1
            let startAnother = s.started < total
            if startAnother { s.started += 1 }
            let isLast = s.finished == total && !s.isOver
            if isLast { s.isOver = true }
            return (startAnother, isLast)
        }
        if isLast { done.signal() }
        return startAnother
    }

    /// Ends the run now, whatever is left (a stream that completed or failed).
    func giveUp() {
        let first = state.withLock { s -> Bool in
            defer { s.isOver = true }
            return !s.isOver
        }
        if first { done.signal() }
    }

    /// Blocks until the run is over; ends the process if that takes longer than the deadline.
    func wait() {
        if done.wait(timeout: .now() + .seconds(TransportBenchmark.runDeadlineSeconds)) == .timedOut {
            TransportBenchmark.abort(
                "transport: a Sluice run passed its deadline: \(state.withLock { $0.finished }) done")
        }
    }

    /// The sample of the finished run.
    func sample(elapsed: UInt64) -> Sample {
        let s = state.withLock { $0 }
        if s.failures > 0 {
            note("transport: Sluice: \(s.failures) failed, first: \(s.firstFailure ?? "?")")
        }
        return Sample(elapsed: elapsed, operations: total, delivered: s.succeeded, checksum: s.bytes)
    }
}
