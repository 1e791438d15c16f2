import BenchChild
import Foundation
import Sluice

/// What a request costs in instructions and Swift objects, counted by valgrind's callgrind in the
/// e2e suite's children: Sluice against raw libcurl in C (plain, and sending Sluice's default
/// headers), on the e2e suite's GETs and 1 KiB POSTs with 64 in flight, against the same local
/// nginx; and, on the GETs, the two Swift clients the e2e suite runs beside it (AsyncHTTPClient and
/// URLSession), for scale. Counts move far less with the machine's load than rates do, so they tell apart changes of
/// a few thousand instructions per request, which the e2e suite's rates cannot.
///
/// How it counts: each child runs twice under callgrind, with `low` and then `high` requests (each
/// run also makes its warm-up requests, `E2EChild.warmUp`), and a figure per request is the
/// difference between the two runs' counts divided by the difference between the requests they
/// made. That cancels what does not depend on the number of requests: loading the process and its
/// libraries, the Swift runtime's start, making the client, opening the 64 connections (both runs
/// make at least 64 requests), the exit. Counting only the measured part of one run instead would
/// not do: callgrind's `--toggle-collect` switches collection per thread, so it would miss the
/// transport's loop thread (where libcurl runs), and its client requests
/// (`CALLGRIND_START_INSTRUMENTATION`) would make the children's build need valgrind's headers.
///
/// What the difference keeps besides the requests' own work: work that depends on time rather than
/// on requests. The client's metrics rebuild their percentiles every 100 ms, and a program under
/// callgrind is ~50× slower; how many transfers each turn of libcurl's loop finds finished depends
/// on how fast the child runs. So a run on a busy machine counts more per request (pairs of the
/// same child differ by 1–2% here, now and then 5%, mostly in libcurl and libc). `low` is a tenth
/// of `high`, so that the first run's own deviation weighs little in the difference, and the suite
/// takes the median of `rounds` pairs (3 by default), run round by round so that a busy spell of
/// the machine falls on every client alike.
///
/// Swift objects are the calls to `swift_allocObject` (from anywhere, the Swift runtime's own
/// included), read from the same runs. The instructions are also split by the object file they ran
/// in (libcurl, libc, the Swift runtime, the other Swift libraries, the program itself, which holds
/// Sluice and the harness linked statically): libcurl's and libc's shares move from run to run,
/// where the program's, the runtime's and the object count hold steady.
enum CostBenchmark: Suite {
    static let name = "cost"
    static let summary =
        "Sluice vs raw libcurl under callgrind: instructions and Swift objects per request (not in all)"

    /// The larger request count of the two runs when `--requests` is not given.
    static let defaultRequests = 4_000
    /// Pairs of runs per client when `--rounds` is not given.
    static let defaultRounds = 3

    /// One count: a client on one workload, GETs or POSTs with `inFlight` at once.
    struct Subject {
        var client: E2EClient
        var workload: E2EWorkload

        /// `get` or `post`, in the keys.
        var verb: String { workload == .post ? "post" : "get" }
        /// The key of its figures in the JSON, e.g. `sluice_get`.
        var key: String { "\(client.rawValue)_\(verb)" }
    }

    /// What the suite counts, in the order it runs them.
    static let subjects: [Subject] =
        [
            E2EClient.c, .cWithSluiceHeaders, .sluice, .sluiceWithoutDefaultHeaders, .sluiceWithAdapter,
            .sluiceObserved,
            .sluiceTransport, .ahc, .urlsession,
        ]
        .map { Subject(client: $0, workload: .parallel) }
        + [E2EClient.c, .cWithSluiceHeaders, .sluice, .sluiceWithoutDefaultHeaders].map {
            Subject(client: $0, workload: .post)
        }

    /// The request counts of one run of the suite.
    struct Plan {
        /// Measured requests of the first and the second run of each child: a tenth, and at least
        /// as many as are in flight (so that both runs open every connection), and the count.
        var low: Int
        var high: Int
        var inFlight: Int
        var rounds: Int

        init(_ options: Options) {
            inFlight = options.inFlight
            let requested = options.isRequestsGiven ? options.requests : CostBenchmark.defaultRequests
            low = max(requested / 10, inFlight)
            high = max(requested, 2 * low)
            rounds = options.isRoundsGiven ? options.rounds : CostBenchmark.defaultRounds
        }

        /// Every request a child told to make `count` makes, its warm-up included.
        func requestsMade(_ workload: E2EWorkload, _ count: Int) -> Int {
            count + E2EChild.warmUp(workload, count: count).count
        }
    }

    /// A subject's figures per request, from one pair of runs.
    struct Sample {
        var instructions: Double
        var allocations: Double
        var instructionsByPart: [CallgrindProfile.Part: Double]
    }

    static func run(_ options: Options) -> SuiteReport {
        let started = Measure.now()
        let plan = Plan(options)
        let selected = subjects.filter { subject in options.only.map { subject.key.contains($0) } ?? true }
        do {
            let valgrind = try Callgrind.valgrind()
            try SluiceDefaults.verify()
            let sluiceHeaders = try E2EBenchmark.sluiceDefaultHeaders()
            let server = try LocalNginx.start(bigFileBytes: 1 << 20, pinWorker: false)
            defer { server.stop() }
            let callgrind = try Callgrind(valgrind: valgrind, directory: server.directory + "/callgrind")
            note(
                "cost: \(callgrind.version) on nginx (\(server.executable)) at 127.0.0.1:\(server.port), libcurl "
                    + "\(SluiceInfo.libcurlVersion); \(selected.count) clients, \(plan.rounds) rounds of two runs each "
                    + "(\(grouped(plan.low)) and \(grouped(plan.high)) requests, \(plan.inFlight) in flight)")

            var samples: [String: [Sample]] = [:]
            var failures: Set<String> = []
            for round in 0..<plan.rounds {
                var figures: [String] = []
                for subject in selected where !failures.contains(subject.key) {
                    do {
                        let sample = try measure(
                            subject, plan: plan, callgrind: callgrind, port: server.port,
                            directory: server.directory, sluiceHeaders: sluiceHeaders)
                        samples[subject.key, default: []].append(sample)
                        figures.append("\(subject.key)=\(grouped(Int(sample.instructions.rounded())))")
                    } catch {
                        note("cost: \(subject.key): \(error)")
                        failures.insert(subject.key)
                    }
                }
                note(
                    "cost round \(round + 1)/\(plan.rounds), instructions per request: \(figures.joined(separator: " "))"
                )
            }
            let seconds = Double(Measure.now() - started) / 1e9
            let figures = samples.mapValues(Figures.init)
            let failed = selected.map(\.key).filter { failures.contains($0) }
            let report = report(plan: plan, figures: figures, failures: failed, seconds: seconds)
            if !figures.isEmpty {
                RunRecord.write(
                    suite: name, figures: report.json,
                    extra: [
                        ("valgrind", .string(callgrind.version)), ("seconds", .integer(Int(seconds.rounded()))),
                        ("all_succeeded", .bool(failed.isEmpty)),
                    ])
            }
            return report
        } catch {
            note("cost: \(error)")
            exit(1)
        }
    }

    /// One pair of runs of `subject`'s child: its figures per request.
    private static func measure(
        _ subject: Subject, plan: Plan, callgrind: Callgrind, port: Int, directory: String, sluiceHeaders: [String]
    ) throws(BenchmarkFailure) -> Sample {
        let context = { (count: Int) in
            E2EContext(
                port: port, directory: directory, count: count, inFlight: plan.inFlight, bulkBytes: 1 << 20,
                requestHeaders: subject.client == .cWithSluiceHeaders ? sluiceHeaders : [])
        }
        let low = try callgrind.profile(subject.client, subject.workload, context(plan.low))
        let high = try callgrind.profile(subject.client, subject.workload, context(plan.high))
        let requests = Double(
            plan.requestsMade(subject.workload, plan.high) - plan.requestsMade(subject.workload, plan.low))
        return Sample(
            instructions: Double(high.instructions - low.instructions) / requests,
            allocations: Double(high.allocations - low.allocations) / requests,
            instructionsByPart: Dictionary(
                uniqueKeysWithValues: CallgrindProfile.Part.allCases.map { part in
                    (part, Double(high.instructions(in: part) - low.instructions(in: part)) / requests)
                }))
    }

    /// A subject's figures over its rounds.
    struct Figures {
        /// Medians of the rounds.
        var instructions: Double
        var allocations: Double
        var instructionsByPart: [CallgrindProfile.Part: Double]
        /// The fewest and the most instructions per request of a round.
        var lowest: Double
        var highest: Double

        init(_ samples: [Sample]) {
            instructions = Measure.median(samples.map(\.instructions))
            allocations = Measure.median(samples.map(\.allocations))
            instructionsByPart = Dictionary(
                uniqueKeysWithValues: CallgrindProfile.Part.allCases.map { part in
                    (part, Measure.median(samples.map { $0.instructionsByPart[part] ?? 0 }))
                })
            lowest = samples.map(\.instructions).min() ?? .nan
            highest = samples.map(\.instructions).max() ?? .nan
        }
    }
}
