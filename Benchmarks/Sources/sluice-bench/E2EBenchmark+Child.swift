import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One client, made once per child, that can run any of its workloads.
protocol E2EContender {
    /// Runs `count` operations of `workload` (with `context.inFlight` at once) and blocks until all
    /// are over. Setup that a program does once (making the client or session) is done before.
    func run(_ workload: E2EWorkload, count: Int) -> E2EOutcome
}

/// How one run went.
struct E2EOutcome: Sendable {
    /// Operations that succeeded and whose results passed their checks.
    var succeeded = 0
    /// Operations that failed or whose results were wrong.
    var failed = 0
    /// The first failure, for the report.
    var firstFailure: String?
}

extension E2EBenchmark {
    /// Parent side: runs one measurement in a child and returns its sample, nil if the child failed.
    static func runChild(_ client: E2EClient, _ workload: E2EWorkload, _ context: E2EContext) -> E2ESample? {
        let arguments = [childSubcommand, client.rawValue, workload.key] + context.arguments
        let outcome: (status: Int32, output: String)
        do {
            outcome = try Subprocess.run(
                Subprocess.currentExecutable(), arguments, deadlineSeconds: childDeadlineSeconds)
        } catch {
            note("e2e: the \(client.rawValue) \(workload.key) child did not start: \(error)")
            return nil
        }
        // The child's one line: ns, CPU µs, peak KiB, baseline KiB, succeeded. Status 1 with the line
        // is a run where some operations failed: its count of successes still counts.
        let fields = outcome.output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard outcome.status == 0 || outcome.status == 1, fields.count == 5 else {
            note(
                "e2e: the \(client.rawValue) \(workload.key) child failed (status \(outcome.status)): "
                    + outcome.output.trimmingCharacters(in: .whitespacesAndNewlines))
            return nil
        }
        return E2ESample(
            nanoseconds: Double(fields[0]), cpuMicroseconds: Double(fields[1]), peakKiB: fields[2],
            baselineKiB: fields[3], succeeded: fields[4])
    }

    /// Child side: `<client> <workload> <port> <directory> <count> <in flight> <bulk bytes>`. Makes the
    /// client, warms it up, measures one run, prints its line and returns the exit status: 0 when
    /// every operation succeeded, 1 otherwise (the line is printed all the same).
    static func child(_ arguments: [String]) -> Int32 {
        guard arguments.count == 7, let client = E2EClient(rawValue: arguments[0]),
            let workload = E2EWorkload.allCases.first(where: { $0.key == arguments[1] }),
            let context = E2EContext(arguments: Array(arguments.dropFirst(2)))
        else {
            note(
                "usage: sluice-bench \(childSubcommand) <c | sluice | urlsession | ahc> <workload> <port> <directory> "
                    + "<count> <in flight> <bulk bytes>")
            return 2
        }
        let contender: any E2EContender
        do {
            contender = try makeContender(client, context)
        } catch {
            note("e2e: \(client.rawValue): \(error)")
            return 1
        }

        // Warm-up: connections open, lazy initialization done, allocators primed. Bulk workloads
        // warm up with a few small GETs, which open the connection the transfer will use.
        let warmUp: (E2EWorkload, Int)
        switch workload {
        case .sequential, .decode, .parallel, .post: warmUp = (workload, max(1, min(context.count / 10, 1_000)))
        case .download, .upload: warmUp = (.sequential, 16)
        case .burst: warmUp = (.parallel, max(1, min(context.count / 10, 1_000)))
        }
        let warm = contender.run(warmUp.0, count: warmUp.1)
        if warm.failed > 0 {
            note("e2e: \(client.rawValue) warm-up: \(warm.failed) failed: \(warm.firstFailure ?? "?")")
        }

        let baseline = Measure.residentKiB() ?? 0
        let cpuBefore = cpuMicroseconds()
        let start = Measure.now()
        let outcome = contender.run(workload, count: context.count)
        let elapsed = Measure.now() &- start
        let cpu = cpuMicroseconds() - cpuBefore
        let peak = Measure.peakResidentKiB() ?? 0
        if workload == .download { unlink(context.downloadDestination(client)) }
        print("\(elapsed) \(cpu) \(peak) \(baseline) \(outcome.succeeded)")
        if outcome.failed > 0 || outcome.succeeded != context.count {
            note(
                "e2e: \(client.rawValue) \(workload.key): \(outcome.succeeded) of \(context.count) succeeded, "
                    + "first failure: \(outcome.firstFailure ?? "none reported")")
            return 1
        }
        return 0
    }

    private static func makeContender(_ client: E2EClient, _ context: E2EContext) throws -> any E2EContender {
        switch client {
        case .c: return try RawCurlContender(context: context)
        case .sluice: return try SluiceContender(context: context)
        case .urlsession: return URLSessionContender(context: context)
        case .ahc: return AsyncHTTPClientContender(context: context)
        }
    }

    /// User + system CPU time of this process so far, every thread included, in µs.
    private static func cpuMicroseconds() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let user = Int(usage.ru_utime.tv_sec) * 1_000_000 + Int(usage.ru_utime.tv_usec)
        let system = Int(usage.ru_stime.tv_sec) * 1_000_000 + Int(usage.ru_stime.tv_usec)
        return user + system
    }
}

/// The tally of one run whose operations finish on any thread: counts, the first failure, and the
/// signal that the last one is over.
final class E2ETally: Sendable {
    private struct State {
        var started = 0
        var outcome = E2EOutcome()
        var isOver = false
    }

    private let total: Int
    private let state = Mutex(State())
    private let done = DispatchSemaphore(value: 0)

    /// A run of `total` operations.
    init(total: Int) {
        self.total = total
        if total == 0 { state.withLock { $0.isOver = true } }
    }

    /// Claims the next operation to start; false when all have been claimed.
    func claim() -> Bool {
        state.withLock { s in
            guard s.started < total else { return false }
            s.started += 1
            return true
        }
    }

    /// Records one finished operation; returns true if the caller should start another (and claims it).
    @discardableResult
    func finish(failure: String? = nil) -> Bool {
        let (another, isLast) = state.withLock { s -> (Bool, Bool) in
            if let failure {
                s.outcome.failed += 1
                if s.outcome.firstFailure == nil { s.outcome.firstFailure = failure }
            } else {
                s.outcome.succeeded += 1
            }
            let another = s.started < total
            if another { s.started += 1 }
            let finished = s.outcome.succeeded + s.outcome.failed
            let isLast = finished == total && !s.isOver
            if isLast { s.isOver = true }
            return (another, isLast)
        }
        if isLast { done.signal() }
        return another
    }

    /// Blocks until every operation is over, or the child's deadline passes; returns the outcome.
    func wait() -> E2EOutcome {
        let isOver = state.withLock { $0.isOver }
        if !isOver, done.wait(timeout: .now() + .seconds(E2EBenchmark.childDeadlineSeconds - 10)) == .timedOut {
            var outcome = state.withLock { $0.outcome }
            outcome.firstFailure = outcome.firstFailure ?? "the run passed its deadline"
            return outcome
        }
        return state.withLock { $0.outcome }
    }
}

/// Runs `body` in a detached task and blocks the calling thread until it returns: how a blocking
/// child drives the async APIs (URLSession's, AsyncHTTPClient's, `.value`).
func blockingRun(_ body: @escaping @Sendable () async -> E2EOutcome) -> E2EOutcome {
    let result = Mutex<E2EOutcome?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let outcome = await body()
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return result.withLock { $0 } ?? E2EOutcome(failed: 1, firstFailure: "no outcome")
}

/// `count` operations by `workers` tasks at once, each taking the next operation as soon as it has
/// finished one: how async code keeps a fixed number of requests in flight. `operation` returns nil
/// on success, or a description of what went wrong.
func inFlightTasks(
    count: Int, workers: Int, _ operation: @escaping @Sendable () async -> String?
) async -> E2EOutcome {
    let tally = E2ETally(total: count)
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<min(workers, count) {
            guard tally.claim() else { break }
            group.addTask {
                while true {
                    let failure = await operation()
                    if !tally.finish(failure: failure) { break }
                }
            }
        }
    }
    return tally.wait()
}
