import CRawCurl
import Foundation
import Sluice

/// Sluice end to end (`Client`, validation, serialization) against raw libcurl multi in C, URLSession
/// and AsyncHTTPClient, side by side in one run against one private nginx on 127.0.0.1.
///
/// Every measurement runs in a fresh child process (this binary again, with a hidden subcommand):
/// the child makes its client, warms it up, then times one run of the workload and reports its wall
/// time, its CPU time (getrusage, user + system, all threads) and its peak RSS (VmHWM), so each
/// client's memory peak is its own and no client inherits another's heap or threads. Rounds go
/// through every workload; within a workload the clients run one after the other, in an order
/// rotated each round. The report gives medians of the rounds (the maximum for peak RSS) and each
/// figure's ratio to the C client's.
///
/// With two or more CPUs the children run on CPU 0 and nginx's worker on the last CPU, as in the
/// transport suite; `--no-pin` leaves placement to the scheduler.
enum E2EBenchmark: Suite {
    static let name = "e2e"
    static let summary = "Sluice Client vs raw libcurl, URLSession, AsyncHTTPClient end to end: req/s, MB/s, CPU, RSS"

    /// The hidden subcommand that runs one measurement in a child process.
    static let childSubcommand = "__e2e-child"
    /// The longest one child may take before it is killed and its measurement counted as failed.
    static let childDeadlineSeconds = 300
    /// The size of each POSTed body.
    static let postBytes = 1024
    /// The JSON document of the decode workload, at this path.
    static let jsonPath = "/item.json"

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
            let document = try JSONEncoder().encode(E2ECatalog.sample)
            let server = try LocalNginx.start(
                bigFileBytes: Int64(plan.bulkBytes), pinWorker: options.pinCPUs, files: [jsonPath: document])
            defer { server.stop() }
            note(
                "e2e: nginx (\(server.executable)) on 127.0.0.1:\(server.port), libcurl \(SluiceInfo.libcurlVersion), "
                    + "\(document.count)-byte JSON document")
            if options.pinCPUs { pinToFirstCPU() }
            let results = measure(options, plan: plan, server: server)
            return report(plan: plan, results: results, jsonBytes: document.count)
        } catch let error as BenchmarkFailure {
            note("e2e: \(error)")
            exit(1)
        } catch {
            note("e2e: cannot encode the JSON document: \(error)")
            exit(1)
        }
    }

    /// Every selected (workload, client) pair, measured `plan.rounds` times, interleaved.
    private static func measure(_ options: Options, plan: Plan, server: LocalNginx) -> E2EResults {
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
        let context = { (plan: Plan, workload: E2EWorkload) in
            E2EContext(
                port: server.port, directory: server.directory, count: plan.count(workload),
                inFlight: plan.inFlight(workload), bulkBytes: plan.bulkBytes)
        }

        // One unrecorded pass, requests at a twentieth of their count (transfers whole: nginx serves
        // one file size): the binary's and libraries' pages, nginx's buffers and the page cache are
        // warm before the first recorded child.
        var warm = plan
        warm.requests = max(1, plan.requests / 20)
        warm.atOnce = max(1, plan.atOnce / 20)
        note("e2e: warm-up pass")
        for (workload, clients) in pairs {
            for client in clients { _ = runChild(client, workload, context(warm, workload)) }
        }

        var results = E2EResults()
        for round in 0..<plan.rounds {
            for (workload, clients) in pairs {
                let pivot = round % clients.count
                var figures: [String] = []
                for client in clients[pivot...] + clients[..<pivot] {
                    let sample = runChild(client, workload, context(plan, workload))
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

/// A client the end-to-end suite measures.
enum E2EClient: String, CaseIterable, Sendable {
    case c
    case sluice
    case urlsession
    case ahc

    /// The row title in a table.
    var label: String {
        switch self {
        case .c: return "C, raw libcurl multi"
        case .sluice: return "Sluice Client"
        case .urlsession: return "URLSession (FoundationNetworking)"
        case .ahc: return "AsyncHTTPClient 1.37.0"
        }
    }
}

/// What one child does, measured for each of its clients.
enum E2EWorkload: String, CaseIterable, Sendable {
    /// Small GETs one after the other, each awaited before the next starts.
    case sequential
    /// GETs of the ~1 KB JSON document, one after the other, each decoded into `E2ECatalog`.
    case decode
    /// Small GETs with a fixed number in flight.
    case parallel
    /// 1 KiB POSTs with a fixed number in flight.
    case post
    /// One large file downloaded to a file.
    case download
    /// One large file uploaded as a multipart form.
    case upload
    /// Small GETs, all started at once.
    case burst

    /// The key in JSON and on the command line (`--only sluice_seq`).
    var key: String {
        switch self {
        case .sequential: return "seq"
        case .decode: return "json"
        case .parallel: return "par64"
        case .post: return "post64"
        case .download: return "download"
        case .upload: return "upload"
        case .burst: return "inflight10k"
        }
    }

    /// Whether the figure is MB/s of one large transfer rather than requests per second.
    var isBulk: Bool { self == .download || self == .upload }

    /// The clients measured, C first: the C client is the reference of every ratio.
    var clients: [E2EClient] {
        switch self {
        case .sequential, .parallel, .post, .download: return [.c, .sluice, .urlsession, .ahc]
        // Sluice's decoding row against C fetching the same document; the other clients'
        // decoding would measure Foundation's JSONDecoder again.
        case .decode: return [.c, .sluice]
        // URLSession has no multipart form builder; a user would not stream a 1 GiB form through it.
        case .upload: return [.c, .sluice, .ahc]
        case .burst: return [.c, .sluice]
        }
    }
}

/// What a child is told: where nginx is and how much work to do.
struct E2EContext: Sendable {
    /// nginx's port on 127.0.0.1.
    var port: Int
    /// nginx's temporary directory: files under `www`, downloads under `downloads`.
    var directory: String
    /// Operations of the measured run.
    var count: Int
    /// How many of them are in flight at once.
    var inFlight: Int
    /// Bytes of a bulk transfer.
    var bulkBytes: Int

    /// `http://127.0.0.1:<port>/`, the Sluice client's base URL.
    var baseURL: String { "http://127.0.0.1:\(port)/" }

    /// The absolute URL of `path` (which starts with `/`).
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The file the upload sends: the file nginx serves for downloads.
    var uploadSource: String { directory + "/www" + LocalNginx.bigPath }

    /// Where `client` downloads to; the child deletes it once it has checked its size.
    func downloadDestination(_ client: E2EClient) -> String { directory + "/downloads/\(client.rawValue).bin" }

    /// The bytes every POST sends: 1 KiB of printable text, the same for every client.
    static let postPayload = Data((0..<E2EBenchmark.postBytes).map { UInt8(ascii: "a") + UInt8($0 % 26) })

    /// The child's arguments, after the subcommand and the client and workload names.
    var arguments: [String] { [String(port), directory, String(count), String(inFlight), String(bulkBytes)] }

    /// Reads the arguments `arguments` wrote; nil if they are malformed.
    init?(arguments: [String]) {
        guard arguments.count == 5, let port = Int(arguments[0]), let count = Int(arguments[2]),
            let inFlight = Int(arguments[3]), let bulkBytes = Int(arguments[4])
        else { return nil }
        self.init(port: port, directory: arguments[1], count: count, inFlight: inFlight, bulkBytes: bulkBytes)
    }

    /// A context with these values.
    init(port: Int, directory: String, count: Int, inFlight: Int, bulkBytes: Int) {
        self.port = port
        self.directory = directory
        self.count = count
        self.inFlight = inFlight
        self.bulkBytes = bulkBytes
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
