import BenchChild
import Sluice

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A reliability run of Sluice's `Client` against the private nginx on 127.0.0.1: many requests at
/// once, many one after the other, many cancelled at random moments, then whether the process gave
/// back what it took. It runs in Sluice's child (`SoakChild`, `SluiceSoak`), so that the memory,
/// descriptors and threads it reads are the client's alone. Kept out of `all`: it passes or fails
/// rather than compares, and a miss exits 1.
enum SoakBenchmark: Suite {
    static let name = "soak"
    static let summary = "Sluice Client under load and cancellation: failures, exactly-once ends, leaks (not in all)"

    /// The targets: RSS growth per 10,000 sequential requests, in KiB.
    static let rssGrowthLimitKiB = 64
    /// The large body some cancelled requests fetch.
    static let bigBytes = 2 << 20

    static func run(_ options: Options) -> SuiteReport {
        let scale = options.quick ? 10 : 1
        do {
            let executable = try Subprocess.child(.sluice)
            let server = try LocalNginx.start(bigFileBytes: Int64(bigBytes), pinWorker: false)
            defer { server.stop() }
            let plan = SoakChild.Plan(
                port: server.port, requests: 20_000 / scale, atOnce: 1_000, sequential: 100_000 / scale,
                cancelled: 10_000 / scale, bigBytes: bigBytes)
            note(
                "soak: nginx on 127.0.0.1:\(server.port); \(grouped(plan.requests)) requests \(plan.atOnce) at once, "
                    + "\(grouped(plan.sequential)) sequential, \(grouped(plan.cancelled)) cancelled")
            let start = Measure.now()
            let outcome = try Subprocess.run(
                executable, [SoakChild.subcommand] + plan.arguments, deadlineSeconds: SoakChild.deadlineSeconds)
            let seconds = Double(Measure.now() &- start) / 1e9
            var figures: [String: Int] = [:]
            for pair in outcome.output.split(whereSeparator: \.isWhitespace) {
                let parts = pair.split(separator: "=")
                if parts.count == 2, let value = Int(parts[1]) { figures[String(parts[0])] = value }
            }
            guard outcome.status == 0, figures["threads_after"] != nil else {
                throw BenchmarkFailure("the soak child failed (status \(outcome.status)): \(outcome.output)")
            }
            return report(figures, seconds: seconds, quick: options.quick)
        } catch {
            note("soak: \(error)")
            exit(1)
        }
    }

    private static func report(_ figures: [String: Int], seconds: Double, quick: Bool) -> SuiteReport {
        func figure(_ key: String) -> Int { figures[key] ?? -1 }
        let phases = [("concurrent", "many at once"), ("sequential", "one at a time"), ("cancel", "cancelled")]
        var table = TextTable(header: ["phase", "requests", "failures", "not exactly once", "time"])
        for (key, label) in phases {
            table.rows.append([
                label, grouped(figure("\(key)_requests")), grouped(figure("\(key)_failures")),
                grouped(figure("\(key)_not_once")), formatted(Double(figure("\(key)_ms")) / 1000) + " s",
            ])
        }
        let failures = phases.reduce(0) { $0 + figure("\($1.0)_failures") }
        let notOnce = phases.reduce(0) { $0 + figure("\($1.0)_not_once") }
        // Requests with a second terminal event by the end, when the child reads every ledger again
        // (a late one, after its phase was counted, included).
        let duplicates = figure("duplicates_at_end")
        let growthKiB = Double(figure("rss_growth_bytes_per_10k")) / 1024
        let checks: [(String, Bool)] = [
            ("failures", failures == 0),
            ("exactly_once", notOnce == 0 && duplicates == 0),
            ("fds_back", figure("fds_after") <= figure("fds_before")),
            ("threads_back", figure("threads_after") <= figure("threads_before")),
            ("rss_growth", growthKiB < Double(rssGrowthLimitKiB)),
        ]
        let passed = checks.allSatisfy(\.1)
        func verdict(_ ok: Bool) -> String { ok ? "pass" : "FAIL" }
        let lines = [
            "soak: Sluice Client against nginx on 127.0.0.1\(quick ? " (--quick: a tenth)" : ""), "
                + "\(formatted(seconds)) s in all",
            table.rendered,
            "cancelled: \(grouped(figure("cancel_interrupted"))) interrupted, "
                + "\(grouped(figure("cancel_completed"))) completed first; of \(grouped(figure("cancel_big"))) "
                + "on the \(bigBytes >> 20) MiB body, \(grouped(figure("cancel_big_interrupted"))) interrupted",
            "failures \(failures): \(verdict(checks[0].1)); not exactly once \(notOnce), ended twice by the end "
                + "\(duplicates): \(verdict(checks[1].1))",
            "peak RSS \(formatted(Double(figure("peak_rss_kib")) / 1024)) MiB; RSS over the sequential batches "
                + "\(grouped(figure("rss_first_kib"))) -> \(grouped(figure("rss_last_kib"))) KiB, growth "
                + "\(formatted(growthKiB)) KiB per 10,000 requests (target < \(rssGrowthLimitKiB)): "
                + verdict(checks[4].1),
            "open fds \(figure("fds_before")) before, \(figure("fds_after")) after: \(verdict(checks[2].1))",
            "threads \(figure("threads_before")) before, \(figure("threads_after")) after: \(verdict(checks[3].1))",
            "soak: \(passed ? "PASS" : "FAIL")",
        ]
        var members: [(String, JSON)] = [("quick", .bool(quick)), ("seconds", .number(seconds))]
        for (key, _) in phases {
            members.append(
                (
                    key,
                    .object(
                        ["requests", "failures", "not_once", "ms"].map { ($0, .integer(figure("\(key)_\($0)"))) })
                ))
        }
        members += [
            ("cancel_interrupted", .integer(figure("cancel_interrupted"))),
            ("cancel_completed", .integer(figure("cancel_completed"))),
            ("cancel_big", .integer(figure("cancel_big"))),
            ("cancel_big_interrupted", .integer(figure("cancel_big_interrupted"))),
            ("failures", .integer(failures)), ("not_exactly_once", .integer(notOnce)),
            ("duplicates_at_end", .integer(duplicates)),
            ("peak_rss_kib", .integer(figure("peak_rss_kib"))),
            ("rss_first_kib", .integer(figure("rss_first_kib"))),
            ("rss_last_kib", .integer(figure("rss_last_kib"))),
            ("rss_growth_kib_per_10k", .number(growthKiB)),
            ("fds_before", .integer(figure("fds_before"))), ("fds_after", .integer(figure("fds_after"))),
            ("threads_before", .integer(figure("threads_before"))),
            ("threads_after", .integer(figure("threads_after"))),
            ("checks", .object(checks.map { ($0.0, .bool($0.1)) })),
            ("pass", .bool(passed)),
        ]
        return SuiteReport(text: lines.joined(separator: "\n"), json: .object(members), isConsistent: passed)
    }
}
