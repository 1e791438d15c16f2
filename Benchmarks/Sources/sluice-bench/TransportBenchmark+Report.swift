import BenchChild

extension TransportBenchmark {
    /// The project's targets for the transport.
    private enum Target {
        /// Sluice's throughput over C's, for every workload.
        static let minimumRatio = 0.9
        /// The peak RSS of a process downloading with Sluice, in MiB.
        static let maximumPeakMiB = 32.0
    }

    /// Builds the tables, the verdicts and the JSON member. Clients left out by `--only` are left
    /// out of the tables and the JSON, and so are the ratios that need them.
    static func report(
        options: Options,
        sequential: [(Client, [Sample])],
        parallel: [(Client, [Sample])],
        download: [(Client, [Sample])],
        memory: PeakMemoryLog
    ) -> SuiteReport {
        let downloadBytes = options.downloadMiB << 20
        let payload = NginxRoutes.smallPayload.utf8.count
        /// Operations per second (requests, or bytes ÷ 10⁶ for the download) from ns per operation.
        func rate(_ key: String, _ nanoseconds: Double) -> Double {
            key.hasSuffix("download") ? Double(downloadBytes) * 1000 / nanoseconds : 1e9 / nanoseconds
        }
        let all = sequential + parallel + download
        let medians = Dictionary(
            uniqueKeysWithValues: all.map { ($0.0.key, rate($0.0.key, Measure.median($0.1.map(\.nanoseconds)))) })
        func ratio(_ sluice: String, _ c: String) -> Double { (medians[sluice] ?? .nan) / (medians[c] ?? .nan) }

        // Every request run must have had every response 200 with the full body; every download
        // the whole file.
        let requestsAgree = (sequential + parallel).allSatisfy { _, samples in
            samples.allSatisfy { $0.delivered == options.requests && $0.checksum == options.requests &* payload }
        }
        let downloadsAgree = download.allSatisfy { _, samples in
            samples.allSatisfy { $0.delivered == downloadBytes && $0.checksum == 1 }
        }
        let isConsistent = requestsAgree && downloadsAgree

        func requestTable(_ title: String, _ results: [(Client, [Sample])], reference: String) -> TextTable {
            var table = TextTable(header: [title, "req/s", "best", "µs/req", "÷ C", "200s", "body bytes"])
            for (client, samples) in results {
                let median = medians[client.key] ?? .nan
                table.rows.append([
                    client.label, formatted(median, decimals: 0),
                    formatted(rate(client.key, Measure.best(samples.map(\.nanoseconds))), decimals: 0),
                    formatted(1e6 / median, decimals: 2), formatted(median / (medians[reference] ?? .nan), decimals: 2),
                    grouped(samples[0].delivered), grouped(samples[0].checksum),
                ])
            }
            return table
        }
        let mebibyte = 1024.0
        func peakMiB(_ key: String) -> Double { (memory.peakKiB[key]?.max()).map { Double($0) / mebibyte } ?? .nan }
        var downloads = TextTable(header: [
            "download \(grouped(options.downloadMiB)) MiB to /dev/null", "MB/s", "best", "÷ C", "peak RSS MiB",
            "RSS before MiB",
        ])
        for (client, samples) in download {
            let median = medians[client.key] ?? .nan
            let baseline = Measure.median((memory.baselineKiB[client.key] ?? []).map { Double($0) / mebibyte })
            downloads.rows.append([
                client.label, formatted(median, decimals: 0),
                formatted(rate(client.key, Measure.best(samples.map(\.nanoseconds))), decimals: 0),
                formatted(median / (medians["c_download"] ?? .nan), decimals: 2), formatted(peakMiB(client.key)),
                formatted(baseline),
            ])
        }

        let seq = ratio("sluice_seq", "c_seq")
        let par = ratio("sluice_par", "c_par")
        let bulk = ratio("sluice_download", "c_download")
        let peak = peakMiB("sluice_download")
        /// "met" or "MISSED", or "n/a" when a client needed for the check did not run.
        func verdict(_ measured: Double, _ met: (Double) -> Bool) -> String {
            measured.isFinite ? (met(measured) ? "met" : "MISSED") : "n/a"
        }
        func ratioLine(_ title: String, _ value: Double, target: Bool) -> String {
            let padded = title + String(repeating: " ", count: max(1, 48 - title.count))
            let check =
                " (target ≥ \(formatted(Target.minimumRatio, decimals: 1)): "
                + "\(verdict(value) { $0 >= Target.minimumRatio }))"
            return padded + formatted(value, decimals: 2) + (target ? check : "")
        }
        let rounds = "\(options.rounds) round\(options.rounds == 1 ? "" : "s")"
        var lines = [
            "transport: \(grouped(options.requests)) GETs of \(payload) bytes per client per round, sequential and "
                + "\(options.inFlight) in flight, and one \(grouped(options.downloadMiB)) MiB download per client per "
                + "round in a fresh process; local nginx on 127.0.0.1, HTTP/1.1 keep-alive; "
                + "\(rounds), order rotated each round; median and best of the rounds (MB = 10⁶ bytes)"
        ]
        if !sequential.isEmpty { lines += ["", requestTable("sequential", sequential, reference: "c_seq").rendered] }
        if !parallel.isEmpty {
            lines += ["", requestTable("\(options.inFlight) in flight", parallel, reference: "c_par").rendered]
        }
        if !download.isEmpty { lines += ["", downloads.rendered] }
        lines += [
            "",
            ratioLine("Sluice / C, sequential (chained):", seq, target: true),
            ratioLine("Sluice / C, sequential, await in a loop:", ratio("sluice_seq_await", "c_seq"), target: false),
        ]
        if options.flatMap {
            lines.append(
                ratioLine(
                    "Sluice / C, sequential, flatMap(.concat):", ratio("sluice_seq_concat", "c_seq"), target: false))
        }
        lines.append(ratioLine("Sluice / C, \(options.inFlight) in flight (chained):", par, target: true))
        if options.flatMap {
            lines.append(
                ratioLine(
                    "Sluice / C, \(options.inFlight) in flight, flatMap(.concurrent):",
                    ratio("sluice_par_flatmap", "c_par"), target: false))
        }
        lines += [
            ratioLine("Sluice / C, download:", bulk, target: true),
            "Sluice download, peak RSS of the process:       \(formatted(peak)) MiB (target ≤ "
                + "\(formatted(Target.maximumPeakMiB, decimals: 0)): \(verdict(peak) { $0 <= Target.maximumPeakMiB })); "
                + "C: \(formatted(peakMiB("c_download"))) MiB",
            "checksums agree:                                \(isConsistent ? "yes" : "NO")",
            // Said with the figures: how libcurl is given the requests differs (Docs/Decisions.md).
            "requests:                                       the same head on the wire (Sluice's decompress off: "
                + "no Accept-Encoding, as C); Sluice hands libcurl each URL parsed (CURLOPT_CURLU), C sets CURLOPT_URL",
        ]

        var members: [(String, JSON)] = []
        let ratios = [
            ("seq_ratio", seq), ("par64_ratio", par), ("download_ratio", bulk),
            ("download_peak_rss_mb", peak), ("seq_await_ratio", ratio("sluice_seq_await", "c_seq")),
            ("seq_concat_ratio", ratio("sluice_seq_concat", "c_seq")),
            ("par64_flatmap_ratio", ratio("sluice_par_flatmap", "c_par")),
            ("c_download_peak_rss_mb", peakMiB("c_download")),
        ]
        members += ratios.filter { $0.1.isFinite }.map { ($0.0, JSON.number($0.1)) }
        for (client, _) in all {
            let unit = client.key.hasSuffix("download") ? "_mb_per_s" : "_req_per_s"
            if let rate = medians[client.key] { members.append((client.key + unit, .number(rate))) }
        }
        members += [
            ("requests", .integer(options.requests)),
            ("in_flight", .integer(options.inFlight)),
            ("download_mib", .integer(options.downloadMiB)),
            ("rounds", .integer(options.rounds)),
            ("checksums_agree", .bool(isConsistent)),
        ]
        return SuiteReport(text: lines.joined(separator: "\n"), json: .object(members), isConsistent: isConsistent)
    }
}
