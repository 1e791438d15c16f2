import BenchChild
import CRawCurl
import Foundation
import Sluice

/// Sluice end to end (`Client`, validation, serialization) against raw libcurl multi in C, URLSession
/// and AsyncHTTPClient, side by side in one run against one private nginx on 127.0.0.1.
///
/// Every measurement runs in a fresh child process of the client's own binary, which links that
/// client alone (`sluice-bench-c`, `-sluice`, `-urlsession`, `-ahc`; `E2EChild`): the child makes
/// its client, warms it up, then times one run of the workload and reports its wall time, its CPU
/// time (getrusage, user + system, all threads) and its peak RSS (VmHWM). Each client's memory peak
/// is then its own, as in a program that uses that client only: no client inherits another's heap
/// or threads, nor the pages of another's libraries (Foundation, FoundationNetworking, SwiftNIO).
/// Rounds go through every workload; within a workload the clients run one after the other, in an
/// order rotated each round. The report gives medians of the rounds (the maximum for peak RSS) and each
/// figure's ratio to the C client's.
///
/// With two or more CPUs the children run on CPU 0 and nginx's worker on the last CPU, as in the
/// transport suite; `--no-pin` leaves placement to the scheduler.
enum E2EBenchmark: Suite {
    static let name = "e2e"
    static let summary = "Sluice Client vs raw libcurl, URLSession, AsyncHTTPClient end to end: req/s, MB/s, CPU, RSS"

    /// The counts one run uses, after `--quick`.
    struct Plan {
        var requests: Int
        var inFlight: Int
        var atOnce: Int
        var bulkMiB: Int
        var rounds: Int

        init(_ options: Options) {
            requests = options.requests
            inFlight = options.inFlight
            atOnce = options.atOnce
            bulkMiB = options.downloadMiB
            // The suite-wide default of 5: a round takes about two minutes on the project's 2-core
            // machine, so the whole suite stays under a quarter of an hour (Docs/Performance.md).
            rounds = options.rounds
            if options.quick {
                requests = min(requests, 2_000)
                atOnce = min(atOnce, 1_000)
                bulkMiB = min(bulkMiB, 64)
                if !options.isRoundsGiven { rounds = 1 }
            }
        }

        /// Bytes of each bulk transfer.
        var bulkBytes: Int { bulkMiB << 20 }

        /// How many operations one run of `workload` performs.
        func count(_ workload: E2EWorkload) -> Int {
            switch workload {
            case .sequential, .decode, .parallel, .post: return requests
            case .download, .upload: return 1
            case .burst: return atOnce
            }
        }

        /// How many of them are in flight at once.
        func inFlight(_ workload: E2EWorkload) -> Int {
            switch workload {
            case .sequential, .decode, .download, .upload: return 1
            case .parallel, .post: return inFlight
            case .burst: return atOnce
            }
        }
    }

    static func run(_ options: Options) -> SuiteReport {
        let plan = Plan(options)
        do {
            try SluiceDefaults.verify()
            for client in E2EClient.allCases { _ = try Subprocess.child(client) }
            let sluiceHeaders = try sluiceDefaultHeaders()
            let document = try JSONEncoder().encode(E2ECatalog.sample)
            let server = try LocalNginx.start(
                bigFileBytes: Int64(plan.bulkBytes), pinWorker: options.pinCPUs,
                files: [NginxRoutes.jsonPath: document])
            defer { server.stop() }
            note(
                "e2e: nginx (\(server.executable)) on 127.0.0.1:\(server.port), libcurl \(SluiceInfo.libcurlVersion), "
                    + "\(document.count)-byte JSON document")
            note(
                "e2e: Sluice's default headers, which the \(E2EClient.cWithSluiceHeaders.rawValue) rows send too: "
                    + sluiceHeaders.joined(separator: " | "))
            if options.pinCPUs { pinToFirstCPU() }
            let results = measure(options, plan: plan, server: server, sluiceHeaders: sluiceHeaders)
            return report(plan: plan, results: results, jsonBytes: document.count)
        } catch let error as BenchmarkFailure {
            note("e2e: \(error)")
            exit(1)
        } catch {
            note("e2e: cannot encode the JSON document: \(error)")
            exit(1)
        }
    }

    /// The header lines Sluice's child adds to every request (`__default-headers`), exactly as it
    /// sends them: its `User-Agent` names its own executable.
    static func sluiceDefaultHeaders() throws(BenchmarkFailure) -> [String] {
        let outcome = try Subprocess.run(Subprocess.child(.sluice), [ChildProgram.defaultHeadersSubcommand])
        let lines = outcome.output.split(separator: "\n").map(String.init)
        guard outcome.status == 0, !lines.isEmpty else {
            throw BenchmarkFailure("the sluice child did not print its default headers (status \(outcome.status))")
        }
        return lines
    }

    /// Every selected (workload, client) pair, measured `plan.rounds` times, interleaved.
    private static func measure(_ options: Options, plan: Plan, server: LocalNginx, sluiceHeaders: [String])
        -> E2EResults
    {
        let pairs = E2EWorkload.allCases.map { workload in
            (
                workload,
                workload.clients.filter { client in
                    options.only.map { "\(client.rawValue)_\(workload.key)".contains($0) } ?? true
                }
            )
        }.filter { !$0.1.isEmpty }
        let downloads = server.directory + "/downloads"
        mkdir(downloads, 0o755)
        let context = { (plan: Plan, workload: E2EWorkload, client: E2EClient) in
            E2EContext(
                port: server.port, directory: server.directory, count: plan.count(workload),
                inFlight: plan.inFlight(workload), bulkBytes: plan.bulkBytes,
                requestHeaders: client == .cWithSluiceHeaders ? sluiceHeaders : [])
        }

        // One unrecorded pass, requests at a twentieth of their count (transfers whole: nginx serves
        // one file size): the binary's and libraries' pages, nginx's buffers and the page cache are
        // warm before the first recorded child.
        var warm = plan
        warm.requests = max(1, plan.requests / 20)
        warm.atOnce = max(1, plan.atOnce / 20)
        note("e2e: warm-up pass")
        for (workload, clients) in pairs {
            for client in clients { _ = runChild(client, workload, context(warm, workload, client)) }
        }

        var results = E2EResults()
        for round in 0..<plan.rounds {
            for (workload, clients) in pairs {
                let pivot = round % clients.count
                var figures: [String] = []
                // The round's first bulk transfer ran at a quarter of the others' rate, whichever
                // client ran it, even with dirty pages flushed: the workload before (the other bulk
                // transfer, 1 GiB written) had pushed this one's files out of the page cache. One
                // unrecorded transfer first brings them back, so no client pays for its place.
                if workload.isBulk {
                    sync()
                    _ = runChild(clients[pivot], workload, context(plan, workload, clients[pivot]))
                }
                for client in clients[pivot...] + clients[..<pivot] {
                    // A bulk transfer leaves up to a GiB of dirty pages (the downloaded file, nginx's
                    // copy of an uploaded body); written back while the next client runs, they
                    // would slow whichever client came next. Each bulk child starts with them on disk.
                    if workload.isBulk { sync() }
                    let sample = runChild(client, workload, context(plan, workload, client))
                    results.samples[workload, default: [:]][client, default: []].append(sample)
                    figures.append(
                        "\(client.rawValue)=\(sample.map { progressFigure($0, workload, plan) } ?? "FAILED")")
                }
                note("e2e round \(round + 1)/\(plan.rounds) \(workload.key): \(figures.joined(separator: " "))")
            }
        }
        return results
    }

    /// A sample's throughput for the progress line.
    private static func progressFigure(_ sample: E2ESample, _ workload: E2EWorkload, _ plan: Plan) -> String {
        let rate = E2EBenchmark.rate(sample.nanoseconds, workload, plan)
        let count = plan.count(workload)
        return formatted(rate, decimals: 0) + (workload.isBulk ? " MB/s" : " req/s")
            + (sample.succeeded == count ? "" : " (\(sample.succeeded) of \(count) succeeded)")
    }

    /// Requests per second, or MB (10⁶ bytes) per second for a bulk transfer.
    static func rate(_ nanoseconds: Double, _ workload: E2EWorkload, _ plan: Plan) -> Double {
        workload.isBulk
            ? Double(plan.bulkBytes) * 1000 / nanoseconds : Double(plan.count(workload)) * 1e9 / nanoseconds
    }

    /// Keeps this thread and the processes it starts from now on (the children) on CPU 0 when there
    /// are two or more CPUs; nginx's worker runs on the last one.
    private static func pinToFirstCPU() {
        guard sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2 else { return }
        if raw_curl_pin_to_cpu(0) != 0 { note("e2e: could not pin to CPU 0; figures may vary more between runs") }
    }
}

/// One recorded child: what its measured run cost.
struct E2ESample {
    /// Wall time of the measured run.
    var nanoseconds: Double
    /// User + system CPU time of the whole child process during the measured run, in µs.
    var cpuMicroseconds: Double
    /// VmHWM at the end of the child, in KiB.
    var peakKiB: Int
    /// VmRSS just before the measured run (after the warm-up), in KiB.
    var baselineKiB: Int
    /// Operations that succeeded and passed their checks.
    var succeeded: Int
}

/// Every recorded sample; a nil sample is a child that failed.
struct E2EResults {
    var samples: [E2EWorkload: [E2EClient: [E2ESample?]]] = [:]
}
