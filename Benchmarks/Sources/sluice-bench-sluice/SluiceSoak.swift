import BenchChild
import Dispatch
import Sluice
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The soak suite's run (`SoakChild`): one `Client` through three phases, counting every request's
/// terminal events, then what the process still holds once the client is gone.
///
/// 1. `requests` GETs of the small body, `atOnce` in flight (libcurl queues what its connection
///    limits do not take), each `.validate().data()`.
/// 2. `sequential` GETs one after the other, in `SoakChild.batches` batches with the resident size
///    sampled after each: its slope is the growth per request.
/// 3. `cancelled` requests disposed at random moments, 16 in flight: the first half on the small
///    body, every other one disposed as soon as `start` returns (before the transport has taken it
///    up) and the others from a timer after a random 0–2 ms; then the second half on the large
///    body, disposed from the timer (mostly mid-body). Each must end exactly once, interrupted or
///    completed.
///
/// File descriptors and threads are counted after a warm-up client has come and gone and the
/// process has been idle (the baseline), and after the soak's client has gone, waiting up to
/// `SoakChild.settleSeconds` for them to fall back (the transport's thread ends, libdispatch's idle
/// workers retire).
enum SluiceSoak {
    /// Every run's ledger, read again at the end for terminal events that came late.
    private static let ledgers = Mutex<[Ledger]>([])

    static func run(_ arguments: [String]) -> Int32 {
        guard let plan = SoakChild.Plan(arguments: arguments) else {
            note(
                "usage: sluice-bench-sluice \(SoakChild.subcommand) <port> <requests> <at once> <sequential> "
                    + "<cancelled> <big bytes>")
            return 2
        }
        var figures: [(String, Int)] = []
        var failures: [String] = []
        do {
            // The baseline: libcurl, the runtime and libdispatch's timers initialized by a client
            // that has done a little of every phase, then gone.
            try withClient(plan) { warm in
                _ = load(warm, count: 200, inFlight: 100)
                _ = cancel(warm, plan: plan, count: 64)
            }
            let (fdsBefore, threadsBefore) = steady()

            var rss: [Int] = []
            try withClient(plan) { client in
                let started = Measure.now()
                let concurrent = load(client, count: plan.requests, inFlight: plan.atOnce)
                figures += concurrent.figures("concurrent", since: started)
                failures += concurrent.firstFailure.map { ["concurrent: \($0)"] } ?? []

                var sequential = Ledger.Summary()
                let batch = max(1, plan.sequential / SoakChild.batches)
                let sequentialStart = Measure.now()
                var done = 0
                while done < plan.sequential {
                    let count = min(batch, plan.sequential - done)
                    sequential.add(load(client, count: count, inFlight: 1))
                    done += count
                    rss.append(Measure.residentBytes() ?? 0)
                }
                figures += sequential.figures("sequential", since: sequentialStart)
                failures += sequential.firstFailure.map { ["sequential: \($0)"] } ?? []

                let cancelStart = Measure.now()
                let cancelled = cancel(client, plan: plan, count: plan.cancelled)
                figures += cancelled.summary.figures("cancel", since: cancelStart)
                figures += [
                    ("cancel_interrupted", cancelled.interrupted), ("cancel_completed", cancelled.completed),
                    ("cancel_big", cancelled.big), ("cancel_big_interrupted", cancelled.bigInterrupted),
                ]
                failures += cancelled.summary.firstFailure.map { ["cancel: \($0)"] } ?? []
            }
            let (fdsAfter, threadsAfter) = settle(
                fds: fdsBefore, threads: threadsBefore, seconds: SoakChild.settleSeconds)
            // A second terminal event after a phase was counted: the ledgers, read again.
            let duplicates = ledgers.withLock { $0.reduce(0) { $0 + $1.duplicates() } }
            let batch = max(1, plan.sequential / SoakChild.batches)
            figures += [
                ("duplicates_at_end", duplicates),
                ("peak_rss_kib", Measure.peakResidentKiB() ?? 0),
                ("rss_first_kib", (rss.first ?? 0) / 1024), ("rss_last_kib", (rss.last ?? 0) / 1024),
                ("rss_growth_bytes_per_10k", Int((slope(rss) * 10_000 / Double(batch)).rounded())),
                ("fds_before", fdsBefore), ("fds_after", fdsAfter),
                ("threads_before", threadsBefore), ("threads_after", threadsAfter),
            ]
        } catch {
            note("soak: cannot make the client: \(error)")
            return 1
        }
        for failure in failures { note("soak: first failure, \(failure)") }
        print(figures.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
        return 0
    }

    /// Runs `body` with a client on a transport of its own (not the shared one, which lives as long
    /// as the process): when `body` returns, both are released, and the transport's thread ends and
    /// closes its connections.
    private static func withClient(_ plan: SoakChild.Plan, _ body: (Client) -> Void) throws {
        body(try Client(baseURL: plan.baseURL, transport: CurlTransport()))
    }

    /// `count` GETs of the small body, `inFlight` at a time, the next started when one ends.
    private static func load(_ client: Client, count: Int, inFlight: Int) -> Ledger.Summary {
        let ledger = Ledger(total: count)
        ledgers.withLock { $0.append(ledger) }
        let next = Atomic<Int>(0)
        let expected = NginxRoutes.smallPayload.utf8.count
        @Sendable func launch() {
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < count else { return }
            client.get(NginxRoutes.smallPath).validate().data().start { event in
                switch event {
                case .value(let data):
                    ledger.value(index, failure: data.count == expected ? nil : "a body of \(data.count) bytes")
                case .completed:
                    ledger.end(index, failure: nil)
                    launch()
                case .failed(let error):
                    ledger.end(index, failure: "\(error)")
                    launch()
                case .interrupted:
                    ledger.end(index, failure: "interrupted, never disposed")
                    launch()
                }
            }
        }
        for _ in 0..<min(inFlight, count) { launch() }
        return ledger.wait()
    }

    /// What the cancellation phase counted.
    struct Cancellations {
        var summary: Ledger.Summary
        var interrupted = 0
        var completed = 0
        /// Requests of the large body, and those of them interrupted.
        var big = 0
        var bigInterrupted = 0
    }

    /// How many cancelled requests are in flight at once.
    static let inFlight = 16

    /// `count` requests disposed at random moments (see the type's documentation), `inFlight` at once.
    private static func cancel(_ client: Client, plan: SoakChild.Plan, count: Int) -> Cancellations {
        let ledger = Ledger(total: count)
        ledgers.withLock { $0.append(ledger) }
        let slots = DispatchSemaphore(value: inFlight)
        let outcomes = Mutex((interrupted: 0, completed: 0, bigInterrupted: 0))
        let timers = DispatchQueue.global()
        var big = 0
        for index in 0..<count {
            // A request that never ends holds its slot: after a minute the rest are not started,
            // and count as ended other than once.
            guard slots.wait(timeout: .now() + .seconds(60)) == .success else {
                note("soak: no request ended for a minute; \(count - index) cancellations not started")
                break
            }
            // The small bodies first, then the large ones: with large bodies in flight, the transport
            // is so busy reading them that hardly a small request completes within 2 ms.
            let isBig = index >= count / 2
            if isBig { big += 1 }
            let expected = isBig ? plan.bigBytes : NginxRoutes.smallPayload.utf8.count
            let path = isBig ? NginxRoutes.bigPath : NginxRoutes.smallPath
            let disposable = client.get(path).validate().data().start { event in
                switch event {
                case .value(let data):
                    ledger.value(index, failure: data.count == expected ? nil : "a body of \(data.count) bytes")
                    return
                // Counted before the ledger, whose last end lets the phase's counts be read.
                case .completed:
                    outcomes.withLock { $0.completed += 1 }
                    ledger.end(index, failure: nil)
                case .interrupted:
                    outcomes.withLock {
                        $0.interrupted += 1
                        if isBig { $0.bigInterrupted += 1 }
                    }
                    ledger.end(index, failure: nil, valueExpected: false)
                case .failed(let error):
                    ledger.end(index, failure: "\(error)")
                }
                slots.signal()
            }
            if !isBig && index.isMultiple(of: 2) {
                disposable.dispose()
            } else {
                timers.asyncAfter(deadline: .now() + .nanoseconds(Int.random(in: 0...2_000_000))) {
                    disposable.dispose()
                }
            }
        }
        let summary = ledger.wait()
        let counted = outcomes.withLock { $0 }
        return Cancellations(
            summary: summary, interrupted: counted.interrupted, completed: counted.completed, big: big,
            bigInterrupted: counted.bigInterrupted)
    }

    /// The fewest open descriptors and threads seen over `SoakChild.idleSeconds`: by then the
    /// warm-up client's thread has ended and libdispatch has retired its idle workers (after about
    /// 5 s), so that a thread the soak leaks cannot hide behind a worker that retires.
    private static func steady() -> (fds: Int, threads: Int) {
        var fewest = (fds: Int.max, threads: Int.max)
        for _ in 0..<(SoakChild.idleSeconds * 10) {
            usleep(100_000)
            fewest.fds = min(fewest.fds, Measure.openDescriptors() ?? -1)
            fewest.threads = min(fewest.threads, Measure.threads() ?? -1)
        }
        return fewest
    }

    /// Waits up to `seconds` for the open descriptors and threads to fall to `fds` and `threads` or
    /// below; returns the last counts.
    private static func settle(fds: Int, threads: Int, seconds: Int) -> (fds: Int, threads: Int) {
        let deadline = Measure.now() + UInt64(seconds) * 1_000_000_000
        while true {
            let counts = (Measure.openDescriptors() ?? -1, Measure.threads() ?? -1)
            if (counts.0 <= fds && counts.1 <= threads) || Measure.now() >= deadline { return counts }
            usleep(100_000)
        }
    }

    /// The least-squares slope of `samples` against their index (bytes per batch); 0 for fewer
    /// than two.
    private static func slope(_ samples: [Int]) -> Double {
        guard samples.count > 1 else { return 0 }
        let n = Double(samples.count)
        let meanX = (n - 1) / 2
        let meanY = samples.reduce(0.0) { $0 + Double($1) } / n
        var numerator = 0.0
        var denominator = 0.0
        for (index, sample) in samples.enumerated() {
            numerator += (Double(index) - meanX) * (Double(sample) - meanY)
            denominator += (Double(index) - meanX) * (Double(index) - meanX)
        }
        return numerator / denominator
    }
}

/// Every request's terminal events of one run, counted by request, with the failures.
final class Ledger: Sendable {
    /// The counts of one or more runs.
    struct Summary {
        var requests = 0
        var failures = 0
        /// Requests that got no terminal event, or more than one.
        var notExactlyOnce = 0
        var firstFailure: String?

        mutating func add(_ other: Summary) {
            requests += other.requests
            failures += other.failures
            notExactlyOnce += other.notExactlyOnce
            firstFailure = firstFailure ?? other.firstFailure
        }

        /// The figures under `prefix`, with the milliseconds since `start`.
        func figures(_ prefix: String, since start: UInt64) -> [(String, Int)] {
            [
                ("\(prefix)_requests", requests), ("\(prefix)_failures", failures),
                ("\(prefix)_not_once", notExactlyOnce),
                ("\(prefix)_ms", Int((Measure.now() &- start) / 1_000_000)),
            ]
        }
    }

    private struct State {
        var terminals: [UInt8]
        var values: [Bool]
        var ended = 0
        var failed: [Bool]
        var firstFailure: String?
    }

    private let state: Mutex<State>
    private let done = DispatchSemaphore(value: 0)
    private let total: Int

    init(total: Int) {
        self.total = total
        state = Mutex(
            State(
                terminals: [UInt8](repeating: 0, count: total), values: [Bool](repeating: false, count: total),
                failed: [Bool](repeating: false, count: total)))
    }

    /// Records a value of request `index`, wrong when `failure` says why.
    func value(_ index: Int, failure: String?) {
        state.withLock { s in
            s.values[index] = true
            if let failure { Self.fail(&s, index, failure) }
        }
    }

    /// Records a terminal event of request `index`: a failure when `failure` says why, or when it
    /// completed without a value (unless `valueExpected` is false).
    func end(_ index: Int, failure: String?, valueExpected: Bool = true) {
        let isLast = state.withLock { s -> Bool in
            if let failure {
                Self.fail(&s, index, failure)
            } else if valueExpected, !s.values[index] {
                Self.fail(&s, index, "completed without a body")
            }
            let first = s.terminals[index] == 0
            s.terminals[index] = s.terminals[index] == .max ? .max : s.terminals[index] + 1
            guard first else { return false }
            s.ended += 1
            return s.ended == total
        }
        if isLast { done.signal() }
    }

    /// Requests that have had more than one terminal event so far.
    func duplicates() -> Int {
        state.withLock { $0.terminals.count(where: { $0 > 1 }) }
    }

    private static func fail(_ s: inout State, _ index: Int, _ failure: String) {
        s.failed[index] = true
        if s.firstFailure == nil { s.firstFailure = "request \(index): \(failure)" }
    }

    /// Waits until every request has ended, or two minutes; returns the counts.
    func wait() -> Summary {
        let deadline = 120
        let isOver = state.withLock { $0.ended == total }
        let timedOut = !isOver && done.wait(timeout: .now() + .seconds(deadline)) == .timedOut
        return state.withLock { s in
            Summary(
                requests: total, failures: s.failed.count(where: { $0 }),
                notExactlyOnce: s.terminals.count(where: { $0 != 1 }),
                firstFailure: s.firstFailure ?? (timedOut ? "the run passed its deadline" : nil))
        }
    }
}
