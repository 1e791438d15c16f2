import BenchChild
import CRawCurl
import Foundation
import Sluice

/// Sluice's `CurlTransport` against a C client on raw libcurl multi, side by side in one process,
/// interleaved, against one private nginx on 127.0.0.1 (`LocalNginx`).
///
/// Three workloads, each measured for both clients in every round, in an order rotated each round:
/// - sequential: `requests` small GETs one after the other. Sluice's headline figure starts each
///   request from the completion of the one before (the observer runs on the transport's loop
///   thread, so no thread is woken to start the next); the same requests awaited one by one in a
///   `for` loop, and chained by `flatMap(.concat)`, are reported beside it;
/// - parallel: `requests` small GETs with `inFlight` running at once: `inFlight` such chains, and
///   `flatMap(.concurrent(limit:))` beside them;
/// - download: one `downloadMiB` file to /dev/null, each in a fresh child process that reports its
///   time and peak RSS (VmHWM): the client's own binary (`sluice-bench-c`, `sluice-bench-sluice`;
///   `TransportDownloadChild`), which links that client alone, so that the peak is the client's and
///   not that of this binary's other clients and libraries.
///
/// Peak RSS is VmHWM in MiB (the JSON's `download_peak_rss_mb`); throughput is in MB of 10⁶ bytes.
/// With two or more CPUs the clients run on CPU 0 and nginx's worker on the last CPU, so that
/// every round trip crosses the same two CPUs (`--no-pin` leaves placement to the scheduler).
///
/// The C client (`CRawCurl`) keeps one multi handle with `CURLMOPT_MAXCONNECTS`, reuses its easy
/// handles without resetting them, counts body bytes in its write callback, and waits in
/// `curl_multi_poll`: what a C programmer tuning libcurl by hand would write.
enum TransportBenchmark: Suite {
    static let name = "transport"
    static let summary = "CurlTransport vs raw libcurl multi in C on a local nginx: req/s, MB/s, peak RSS"

    /// The longest one measured run may take before the benchmark gives up.
    static let runDeadlineSeconds = 300

    /// Rounds when `--rounds` is not given. A round of 20,000 sequential GETs lasts under two
    /// seconds, and on these machines a client's rate drifts by up to 20% from one round to the
    /// next (C's alone moved between 10,980 and 12,758 GETs per second in one run): with 5 rounds
    /// the median ratio of one run moved by ±0.07 around the 0.95 that 35 rounds gave. The suite
    /// is short (~40 s with 5), so it takes more rounds rather than a wider spread.
    static let defaultRounds = 9

    static func run(_ options: Options) -> SuiteReport {
        var options = options
        if !options.isRoundsGiven { options.rounds = defaultRounds }
        do {
            try SluiceDefaults.verify()
            for client in [E2EClient.c, .sluice] { _ = try Subprocess.child(client) }
            let server = try LocalNginx.start(
                bigFileBytes: Int64(options.downloadMiB) << 20, pinWorker: options.pinCPUs)
            defer { server.stop() }
            return try measure(options, server: server)
        } catch {
            abort("transport: \(error)")
        }
    }

    /// Ends the process after a failure; the exit handler stops nginx.
    static func abort(_ message: String) -> Never {
        note(message)
        exit(1)
    }

    private static func measure(_ options: Options, server: LocalNginx) throws(BenchmarkFailure) -> SuiteReport {
        let smallURL = server.url(NginxRoutes.smallPath)
        let bigURL = server.url(NginxRoutes.bigPath)
        let downloadBytes = options.downloadMiB << 20
        note(
            "transport: nginx (\(server.executable)) on 127.0.0.1:\(server.port), libcurl \(SluiceInfo.libcurlVersion)")

        if options.pinCPUs { pinToFirstCPU() }
        guard let raw = raw_curl_client_create(SluiceDefaults.connectionCacheSize) else {
            throw BenchmarkFailure("the C client could not initialise libcurl")
        }
        defer { raw_curl_client_destroy(raw) }
        let transport = CurlTransport()
        let small: PreparedRequest
        do {
            var request = Request(url: URL(string: smallURL)!)
            // The same request head on the wire as the C client's, which decodes nothing and sends
            // no Accept-Encoding: libcurl formats each header a character at a time, so Sluice's
            // default line cost it ~5,800 instructions per GET that C did not pay (callgrind). The
            // end-to-end suite measures the defaults.
            request.options.decompress = false
            small = try request.prepared()
        } catch {
            throw BenchmarkFailure("the small request is invalid: \(error)")
        }
        let response = transport.response(for: small)
        let sluice = SluiceWorkloads(response: response)
        let requests = options.requests
        let lanes = options.inFlight
        let keys = [
            "c_seq", "sluice_seq", "sluice_seq_await", "sluice_seq_concat", "c_par", "sluice_par",
            "sluice_par_flatmap", "c_download", "sluice_download",
        ]
        let isSelected = { (client: Client) -> Bool in
            if client.key.contains("flatmap") || client.key.contains("concat"), !options.flatMap { return false }
            guard let only = options.only else { return true }
            return keys.contains(only) ? client.key == only : client.key.contains(only)
        }

        let sequential = [
            Client(label: "C, raw libcurl multi", key: "c_seq", operations: requests) {
                rawGets(raw, smallURL, count: $0, inFlight: 1)
            },
            Client(label: "Sluice, next started on completion", key: "sluice_seq", operations: requests) {
                sluice.chains($0, lanes: 1)
            },
            Client(label: "Sluice, await .value in a for loop", key: "sluice_seq_await", operations: requests) {
                sluice.awaitLoop($0)
            },
            Client(label: "Sluice, flatMap(.concat)", key: "sluice_seq_concat", operations: requests) {
                sluice.flattened($0, strategy: .concat)
            },
        ].filter(isSelected)
        let parallel = [
            Client(label: "C, raw libcurl multi", key: "c_par", operations: requests) {
                rawGets(raw, smallURL, count: $0, inFlight: lanes)
            },
            Client(label: "Sluice, \(lanes) chains started on completion", key: "sluice_par", operations: requests) {
                sluice.chains($0, lanes: lanes)
            },
            Client(
                label: "Sluice, flatMap(.concurrent(limit: \(lanes)))", key: "sluice_par_flatmap", operations: requests
            ) {
                sluice.flattened($0, strategy: .concurrent(limit: lanes))
            },
        ].filter(isSelected)
        let memory = PeakMemoryLog()
        let download = [E2EClient.c, .sluice].map { client in
            Client(
                label: client == .c ? "C, raw libcurl multi" : "Sluice, .file(/dev/null)",
                key: "\(client.rawValue)_download", operations: 1
            ) { _ in
                downloadInChild(client: client, url: bigURL, bytes: downloadBytes, log: memory)
            }
        }.filter(isSelected)

        let results = Measure.compete([sequential, parallel, download], rounds: options.rounds) { round, latest in
            let figures = latest.map { client, sample in
                client.key.hasSuffix("download")
                    ? "\(client.key)=\(formatted(Double(downloadBytes) * 1000 / sample.nanoseconds)) MB/s"
                    : "\(client.key)=\(formatted(1e9 / sample.nanoseconds, decimals: 0)) req/s"
            }
            note("transport round \(round + 1)/\(options.rounds): \(figures.joined(separator: " "))")
        }
        return report(
            options: options, sequential: results[0], parallel: results[1], download: results[2], memory: memory)
    }

    /// Keeps this thread, and the threads it starts from now on (the transport's loop thread, the
    /// download children), on CPU 0 when there are two or more CPUs; nginx's worker runs on the
    /// last one. Both clients then run under the same conditions, and runs repeat.
    private static func pinToFirstCPU() {
        guard sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2 else { return }
        if raw_curl_pin_to_cpu(0) != 0 {
            note("transport: could not pin to CPU 0; figures may vary more between runs")
        }
    }

    /// `count` GETs of `url` by the C client, `inFlight` at a time.
    private static func rawGets(
        _ raw: OpaquePointer, _ url: String, count: Int, inFlight: Int, bufferSize: Int = 0
    ) -> Sample {
        var result = raw_curl_result()
        let elapsed = Measure.time {
            raw_curl_client_get(raw, url, count, inFlight, bufferSize, runDeadlineSeconds * 1000, &result)
        }
        if elapsed.result != 0 { abort("transport: the C client's libcurl setup failed") }
        if result.timed_out != 0 { abort("transport: the C client's run passed its deadline") }
        if result.failed > 0 { note("transport: C: \(result.failed) failed, first error \(result.first_error)") }
        return Sample(
            elapsed: elapsed.nanoseconds, operations: count, delivered: Int(result.succeeded),
            checksum: Int(result.bytes))
    }
}
