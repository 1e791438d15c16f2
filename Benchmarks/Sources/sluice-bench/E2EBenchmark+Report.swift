import BenchChild

extension E2EBenchmark {
    /// The project's targets for Sluice end to end (issue 8).
    private enum Target {
        /// Sluice's throughput over C's on the request workloads.
        static let requestRatio = 0.85
        /// Sluice's throughput over C's on the bulk transfers.
        static let bulkRatio = 0.9
        /// The peak RSS of a process moving 1 GiB with Sluice, in MiB.
        static let maximumPeakMiB = 32.0
    }

    /// The figures of one client on one workload, over its rounds.
    private struct Figures {
        /// Requests per second or MB/s, median of the rounds where every operation succeeded.
        var rate = Double.nan
        /// CPU µs per operation (per transfer for bulk workloads), median of the same rounds.
        var cpuMicroseconds = Double.nan
        /// The largest peak RSS of any round, in MiB.
        var peakMiB = Double.nan
        /// The median RSS just before the measured run, in MiB.
        var baselineMiB = Double.nan
        /// The fewest operations that succeeded in a round (nil when no child reported).
        var leastSucceeded: Int?
        /// Rounds where every operation succeeded, and rounds run.
        var validRounds = 0
        var rounds = 0
    }

    /// Builds the tables, the verdicts and the JSON member.
    static func report(plan: Plan, results: E2EResults, jsonBytes: Int) -> SuiteReport {
        var figures: [E2EWorkload: [E2EClient: Figures]] = [:]
        for (workload, byClient) in results.samples {
            for (client, samples) in byClient {
                figures[workload, default: [:]][client] = summarize(samples, workload, plan)
            }
        }
        func figure(_ client: E2EClient, _ workload: E2EWorkload) -> Figures? { figures[workload]?[client] }
        /// `client`'s figure over `reference`'s (Sluice's over C's unless told otherwise).
        func ratio(
            _ workload: E2EWorkload, _ client: E2EClient = .sluice, to reference: E2EClient = .c,
            _ value: (Figures) -> Double
        ) -> Double {
            guard let measured = figure(client, workload), let base = figure(reference, workload) else { return .nan }
            return value(measured) / value(base)
        }

        /// `client`'s rate over C's round by round (rounds where both did all their work), as the
        /// median and the range: within a round the two ran seconds apart, so a drift of the machine's
        /// speed over the run moves this less than the ratio of the medians, which may pair rounds
        /// minutes apart.
        func roundRatios(_ workload: E2EWorkload, _ client: E2EClient) -> (median: Double, low: Double, high: Double)? {
            let count = plan.count(workload)
            guard let measured = results.samples[workload]?[client], let base = results.samples[workload]?[.c] else {
                return nil
            }
            let ratios = zip(measured, base).compactMap { pair -> Double? in
                guard let sample = pair.0, let reference = pair.1, sample.succeeded == count,
                    reference.succeeded == count, sample.nanoseconds > 0
                else { return nil }
                return reference.nanoseconds / sample.nanoseconds
            }
            guard let low = ratios.min(), let high = ratios.max() else { return nil }
            return (Measure.median(ratios), low, high)
        }
        func withRounds(_ line: String, _ workload: E2EWorkload, _ client: E2EClient) -> String {
            guard let r = roundRatios(workload, client) else { return line }
            return line
                + "  [by round: median \(formatted(r.median, decimals: 2)), "
                + "\(formatted(r.low, decimals: 2))–\(formatted(r.high, decimals: 2))]"
        }

        var lines = [
            "e2e: \(grouped(plan.requests)) requests per client per round (sequential GETs of "
                + "\(NginxRoutes.smallPayload.utf8.count) bytes, GETs of a \(jsonBytes)-byte JSON document, GETs "
                + "and \(E2EContext.postBytes)-byte POSTs with \(plan.inFlight) in flight), \(grouped(plan.atOnce)) GETs started "
                + "at once, a \(grouped(plan.bulkMiB)) MiB download to a file and a \(grouped(plan.bulkMiB)) MiB "
                + "multipart upload from a file; local nginx on 127.0.0.1, HTTP/1.1 keep-alive; each measurement "
                + "in a fresh process; \(plan.rounds) round\(plan.rounds == 1 ? "" : "s"), order rotated each round; "
                + "median of the rounds, peak RSS the largest (MB = 10⁶ bytes, MiB = 2²⁰)"
        ]
        for workload in E2EWorkload.allCases {
            guard let byClient = figures[workload] else { continue }
            lines += ["", table(workload, byClient, plan).rendered]
        }

        let requestRatios: [(E2EWorkload, String)] = [
            (.sequential, "sequential, await .value"), (.parallel, "\(plan.inFlight) in flight, start"),
            (.post, "\(E2EContext.postBytes)-byte POSTs, \(plan.inFlight) in flight"),
        ]
        let bulkRatios: [(E2EWorkload, String)] = [(.download, "download to a file"), (.upload, "multipart upload")]
        lines.append("")
        for (workload, title) in requestRatios {
            let line = verdictLine(
                "Sluice / C, \(title):", ratio(workload) { $0.rate }, target: Target.requestRatio, atLeast: true)
            lines.append(withRounds(line, workload, .sluice))
        }
        // The same requests, byte for byte: what Sluice's own code costs, once libcurl's work on the
        // default headers is in both (libcurl formats each header line a character at a time).
        for (workload, title) in requestRatios {
            lines.append(
                verdictLine(
                    "Sluice / C sending Sluice's headers, \(title):",
                    ratio(workload, to: .cWithSluiceHeaders) { $0.rate }, target: nil, atLeast: true))
        }
        for (workload, title) in requestRatios {
            lines.append(
                verdictLine(
                    "C sending Sluice's headers / C, \(title):",
                    ratio(workload, .cWithSluiceHeaders) { $0.rate }, target: nil, atLeast: true))
        }
        // From the other side: Sluice sending what the plain C client sends.
        for (workload, title) in requestRatios {
            let line = verdictLine(
                "Sluice without default headers / C, \(title):",
                ratio(workload, .sluiceWithoutDefaultHeaders) { $0.rate }, target: nil, atLeast: true)
            lines.append(withRounds(line, workload, .sluiceWithoutDefaultHeaders))
        }
        let executorLine = verdictLine(
            "Sluice on its transport's executor / C, sequential:",
            ratio(.sequential, .sluiceOnTransportExecutor) { $0.rate }, target: nil, atLeast: true)
        lines.append(withRounds(executorLine, .sequential, .sluiceOnTransportExecutor))
        lines.append(
            verdictLine("Sluice / C, decode(_:) vs C's bytes:", ratio(.decode) { $0.rate }, target: nil, atLeast: true))
        for (workload, title) in bulkRatios {
            lines.append(
                verdictLine(
                    "Sluice / C, \(title):", ratio(workload) { $0.rate }, target: Target.bulkRatio, atLeast: true))
        }
        for (workload, title) in bulkRatios {
            let peak = figure(.sluice, workload)?.peakMiB ?? .nan
            lines.append(
                verdictLine(
                    "Sluice \(title), peak RSS MiB:", peak, target: Target.maximumPeakMiB, atLeast: false,
                    decimals: 1))
        }
        let completed = figure(.sluice, .burst)?.leastSucceeded
        let burstTitle = "Sluice, \(grouped(plan.atOnce)) at once, completed:"
        lines.append(
            padded(burstTitle)
                + (completed.map { "\(grouped($0)) of \(grouped(plan.atOnce)) in the worst round" } ?? "n/a")
                + (completed.map { $0 == plan.atOnce ? " (target: all: met)" : " (target: all: MISSED)" } ?? ""))
        lines.append(
            verdictLine(
                "Sluice / C, \(grouped(plan.atOnce)) at once:", ratio(.burst) { $0.rate }, target: nil, atLeast: true))

        // The checks: every round of C and Sluice must have done all its work; the others are
        // reported as they went.
        let isConsistent = [
            E2EClient.c, .cWithSluiceHeaders, .sluice, .sluiceOnTransportExecutor, .sluiceWithoutDefaultHeaders,
        ].allSatisfy { client in
            figures.values.allSatisfy { byClient in
                byClient[client].map { $0.validRounds == $0.rounds } ?? true
            }
        }
        var failures: [String] = []
        for workload in E2EWorkload.allCases {
            for client in workload.clients {
                guard let f = figure(client, workload), f.validRounds < f.rounds else { continue }
                failures.append("\(client.rawValue) \(workload.key): \(f.rounds - f.validRounds) of \(f.rounds) rounds")
            }
        }
        lines.append(
            padded("every operation succeeded:")
                + (failures.isEmpty ? "yes" : "NO, failed rounds: " + failures.joined(separator: "; ")))
        // Said with the figures, since it is work Sluice's transport does not do (Docs/Decisions.md).
        lines.append(
            padded("URLs:") + "Sluice hands libcurl each URL parsed (CURLOPT_CURLU); the C clients set CURLOPT_URL")

        var members: [(String, JSON)] = []
        let headline: [(String, Double)] = [
            ("seq_ratio", ratio(.sequential) { $0.rate }),
            ("par64_ratio", ratio(.parallel) { $0.rate }),
            ("post64_ratio", ratio(.post) { $0.rate }),
            ("download_ratio", ratio(.download) { $0.rate }),
            ("upload_ratio", ratio(.upload) { $0.rate }),
            ("download_peak_rss_mb", figure(.sluice, .download)?.peakMiB ?? .nan),
            ("upload_peak_rss_mb", figure(.sluice, .upload)?.peakMiB ?? .nan),
        ]
        members += headline.filter { $0.1.isFinite }.map { ($0.0, JSON.number($0.1)) }
        if let completed { members.append(("inflight10k_completed", .integer(completed))) }
        let extra: [(String, Double)] = [
            ("json_decode_ratio", ratio(.decode) { $0.rate }),
            ("seq_executor_ratio", ratio(.sequential, .sluiceOnTransportExecutor) { $0.rate }),
            ("inflight10k_ratio", ratio(.burst) { $0.rate }),
            ("inflight10k_peak_rss_mb", figure(.sluice, .burst)?.peakMiB ?? .nan),
        ]
        // Per request workload (`seq`, `par64`, `post64`): Sluice against C sending the same headers,
        // and that C against plain C.
        let sameHeaders = requestRatios.map { workload, _ in
            ("\(workload.key)_ratio_same_headers", ratio(workload, to: .cWithSluiceHeaders) { $0.rate })
        }
        let headersCost = requestRatios.map { workload, _ in
            ("\(workload.key)_headers_cost_ratio", ratio(workload, .cWithSluiceHeaders) { $0.rate })
        }
        let bare = requestRatios.map { workload, _ in
            ("\(workload.key)_bare_ratio", ratio(workload, .sluiceWithoutDefaultHeaders) { $0.rate })
        }
        // The median of the per-round ratios beside each request workload's headline ratio.
        let byRound = requestRatios.map { workload, _ in
            ("\(workload.key)_round_ratio_median", roundRatios(workload, .sluice)?.median ?? .nan)
        }
        members += (extra + sameHeaders + headersCost + bare + byRound).filter { $0.1.isFinite }.map {
            ($0.0, JSON.number($0.1))
        }
        for workload in E2EWorkload.allCases {
            for client in workload.clients {
                guard let f = figure(client, workload) else { continue }
                let key = "\(client.rawValue)_\(workload.key)"
                let values: [(String, Double)] = [
                    (key + (workload.isBulk ? "_mb_per_s" : "_req_per_s"), f.rate),
                    (key + (workload.isBulk ? "_cpu_us_per_transfer" : "_cpu_us_per_req"), f.cpuMicroseconds),
                    (key + "_peak_rss_mb", f.peakMiB),
                ]
                members += values.filter { $0.1.isFinite }.map { ($0.0, JSON.number($0.1)) }
            }
        }
        members += [
            ("requests", .integer(plan.requests)),
            ("in_flight", .integer(plan.inFlight)),
            ("at_once", .integer(plan.atOnce)),
            ("bulk_mib", .integer(plan.bulkMiB)),
            ("rounds", .integer(plan.rounds)),
            ("all_succeeded", .bool(failures.isEmpty)),
        ]
        return SuiteReport(text: lines.joined(separator: "\n"), json: .object(members), isConsistent: isConsistent)
    }

    private static func summarize(_ samples: [E2ESample?], _ workload: E2EWorkload, _ plan: Plan) -> Figures {
        let count = plan.count(workload)
        let reported = samples.compactMap { $0 }
        let valid = reported.filter { $0.succeeded == count }
        var f = Figures()
        f.rounds = samples.count
        f.validRounds = valid.count
        f.leastSucceeded = reported.map(\.succeeded).min()
        let mebibyte = 1024.0
        f.peakMiB = reported.map { Double($0.peakKiB) / mebibyte }.max() ?? .nan
        if !reported.isEmpty { f.baselineMiB = Measure.median(reported.map { Double($0.baselineKiB) / mebibyte }) }
        if !valid.isEmpty {
            f.rate = rate(Measure.median(valid.map(\.nanoseconds)), workload, plan)
            f.cpuMicroseconds = Measure.median(valid.map { $0.cpuMicroseconds / Double(count) })
        }
        return f
    }

    private static func table(_ workload: E2EWorkload, _ byClient: [E2EClient: Figures], _ plan: Plan) -> TextTable {
        let title: String
        switch workload {
        case .sequential: title = "sequential GETs"
        case .decode: title = "sequential GETs of JSON (Sluice decodes)"
        case .parallel: title = "GETs, \(plan.inFlight) in flight"
        case .post: title = "\(E2EContext.postBytes)-byte POSTs, \(plan.inFlight) in flight"
        case .download: title = "\(grouped(plan.bulkMiB)) MiB download to a file"
        case .upload: title = "\(grouped(plan.bulkMiB)) MiB multipart upload"
        case .burst: title = "\(grouped(plan.atOnce)) GETs at once"
        }
        let cpuTitle = workload.isBulk ? "CPU ms" : "CPU µs/req"
        var table = TextTable(header: [
            title, workload.isBulk ? "MB/s" : "req/s", "÷ C", cpuTitle, "÷ C", "peak RSS MiB", "÷ C", "RSS before",
            "ok rounds",
        ])
        let reference = byClient[.c]
        for client in workload.clients {
            guard let f = byClient[client] else { continue }
            let cpu = workload.isBulk ? f.cpuMicroseconds / 1000 : f.cpuMicroseconds
            table.rows.append([
                client.label, formatted(f.rate, decimals: 0),
                formatted(f.rate / (reference?.rate ?? .nan), decimals: 2),
                formatted(cpu, decimals: workload.isBulk ? 0 : 1),
                formatted(f.cpuMicroseconds / (reference?.cpuMicroseconds ?? .nan), decimals: 2),
                formatted(f.peakMiB), formatted(f.peakMiB / (reference?.peakMiB ?? .nan), decimals: 2),
                formatted(f.baselineMiB), "\(f.validRounds)/\(f.rounds)",
            ])
        }
        return table
    }

    private static func padded(_ title: String) -> String {
        title + String(repeating: " ", count: max(1, 68 - title.count))
    }

    /// `title value (target ≥ x: met)`; "n/a" when a client needed for the figure did not run.
    private static func verdictLine(
        _ title: String, _ value: Double, target: Double?, atLeast: Bool, decimals: Int = 2
    ) -> String {
        guard value.isFinite else { return padded(title) + "n/a" }
        var line = padded(title) + formatted(value, decimals: decimals)
        if let target {
            let met = atLeast ? value >= target : value <= target
            line += " (target \(atLeast ? "≥" : "≤") \(formatted(target, decimals: 2)): \(met ? "met" : "MISSED"))"
        }
        return line
    }
}
