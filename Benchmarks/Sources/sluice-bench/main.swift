import BenchChild

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Settings shared by every suite, read from the command line.
struct Options: Sendable {
    /// Print exactly one JSON object on standard output instead of tables.
    var json = false
    /// How many measured rounds each client runs; the report gives the median.
    var rounds = 5
    /// Whether `--rounds` was given; a suite whose rounds are long may default to fewer.
    var isRoundsGiven = false
    /// Events pushed through a chain per client per round.
    var events = 10_000_000
    /// Start + dispose cycles per client per round.
    var subscriptions = 1_000_000
    /// When set, only the clients whose JSON key contains this text run (for profiling one client);
    /// in the transport suite, a text equal to a client's key selects that client alone.
    var only: String?
    /// Requests per client per round (transport and e2e suites; events and shapes take 50,000 unless
    /// `--requests` is given).
    var requests = 20_000
    /// Whether `--requests` was given.
    var isRequestsGiven = false
    /// Requests kept in flight at once by the parallel workload (transport suite).
    var inFlight = 64
    /// Size of the download in MiB (transport suite).
    var downloadMiB = 1024
    /// Also measure Sluice chained by `flatMap` (transport suite; off by default, see `--help`).
    var flatMap = false
    /// Pin the clients to CPU 0 and nginx's worker to the last CPU (transport and e2e suites; `--no-pin`
    /// turns it off).
    var pinCPUs = true
    /// Requests started all at once by the end-to-end suite's burst workload.
    var atOnce = 10_000
    /// End-to-end suite: a smoke test with a tenth of the requests, 64 MiB transfers and one round;
    /// soak suite: a tenth of its requests.
    var quick = false
}

/// What a suite hands back: a readable report, its JSON member, and whether its self-checks held.
struct SuiteReport {
    /// The table and verdicts, for people.
    var text: String
    /// The suite's member of the top-level JSON object.
    var json: JSON
    /// False when clients disagreed on a checksum (their work was not the same, or was optimized away),
    /// or a measurement failed.
    var isConsistent: Bool
}

/// A workload measured side by side across clients; each is one subcommand.
protocol Suite {
    /// The subcommand and the key of the suite's JSON member.
    static var name: String { get }
    /// One line for `--help`.
    static var summary: String { get }
    /// Runs the workload; progress goes to standard error, the report is returned.
    static func run(_ options: Options) -> SuiteReport
}

/// Every suite, in the order `all` runs them. Transport and end-to-end suites join here.
let suites: [any Suite.Type] = [
    SignalsBenchmark.self, EventsBenchmark.self, ShapesBenchmark.self, ParsersBenchmark.self, TransportBenchmark.self,
    E2EBenchmark.self, CacheBenchmark.self,
]

/// The suites `all` leaves out, run only by name: the cost suite runs the children under valgrind
/// (two to three minutes here, and valgrind must be installed); the soak suite is long, and passes or
/// fails rather than compares.
let separateSuites: [any Suite.Type] = [CostBenchmark.self, SoakBenchmark.self, ResumeBenchmark.self]

/// The usage text.
@MainActor
func usage() -> String {
    var lines = [
        "usage: sluice-bench <suite | all> [--json] [--rounds N] [--events N] [--subscriptions N] [--only KEY]",
        "                    [--requests N] [--in-flight N] [--download-mib N] [--flatmap] [--no-pin]",
        "                    [--at-once N] [--quick]",
        "",
        "suites:",
    ]
    lines += suites.map { "  \($0.name)\(String(repeating: " ", count: max(1, 10 - $0.name.count)))\($0.summary)" }
    lines.append("  all       every suite above, in one process")
    lines += separateSuites.map {
        "  \($0.name)\(String(repeating: " ", count: max(1, 10 - $0.name.count)))\($0.summary)"
    }
    lines += [
        "",
        "options:",
        "  --json             print exactly one JSON object on standard output (tables go to standard error)",
        "  --rounds N         measured rounds per client, median reported (default 5; 9 for transport, 3 for",
        "                     cost)",
        "  --events N         events per client per round (default 10000000)",
        "  --subscriptions N  start + dispose cycles per client per round (default 1000000)",
        "  --only KEY         run only the clients whose JSON key contains KEY (to profile one)",
        "  --requests N       requests per client per round (default 20000; 50000 for events and shapes;",
        "                     cost: the larger of its two runs' counts, default 4000, the smaller a tenth)",
        "  --in-flight N      requests in flight in the parallel workloads, transport, e2e and cost suites",
        "                     (default 64)",
        "  --download-mib N   size of the download (and e2e upload) in MiB, transport and e2e suites (default 1024)",
        "  --at-once N        e2e suite: requests started all at once in the burst workload (default 10000)",
        "  --quick            e2e suite: a smoke test of at most 2000 requests, 1000 at once, 64 MiB",
        "                     transfers, and one round unless --rounds is given; soak suite: a tenth;",
        "                     resume suite: 100 downloads",
        "  --flatmap          transport suite: also run requests through flatMap(.concat) and",
        "                     flatMap(.concurrent); off by default: SluiceSignals' flatMap is",
        "                     currently quadratic in the number of inner producers",
        "  --no-pin           transport and e2e suites: let the scheduler place the clients and nginx (by",
        "                     default the clients run on CPU 0 and nginx's worker on the last CPU)",
    ]
    return lines.joined(separator: "\n")
}

/// Parses the command line into the suites to run and the options; exits on a usage error.
@MainActor
func parse(_ arguments: [String]) -> (selected: [any Suite.Type], options: Options) {
    var options = Options()
    var selected: [any Suite.Type] = []
    var rest = arguments[...]
    func fail(_ message: String) -> Never {
        note("sluice-bench: \(message)\n\n\(usage())")
        exit(2)
    }
    func count(after flag: String) -> Int {
        guard let text = rest.popFirst(), let value = Int(text), value > 0 else {
            fail("\(flag) needs a positive integer")
        }
        return value
    }
    while let argument = rest.popFirst() {
        switch argument {
        case "--json": options.json = true
        case "--rounds":
            options.rounds = count(after: argument)
            options.isRoundsGiven = true
        case "--events": options.events = count(after: argument)
        case "--subscriptions": options.subscriptions = count(after: argument)
        case "--requests":
            options.requests = count(after: argument)
            options.isRequestsGiven = true
        case "--in-flight": options.inFlight = count(after: argument)
        case "--download-mib": options.downloadMiB = count(after: argument)
        case "--flatmap": options.flatMap = true
        case "--no-pin": options.pinCPUs = false
        case "--at-once": options.atOnce = count(after: argument)
        case "--quick": options.quick = true
        case "--only":
            guard let text = rest.popFirst() else { fail("--only needs a client key, e.g. sluice_ns_per_event") }
            options.only = text
        case "-h", "--help", "help":
            print(usage())
            exit(0)
        case "all": selected = suites
        default:
            guard let suite = (suites + separateSuites).first(where: { $0.name == argument }) else {
                fail("unknown argument '\(argument)'")
            }
            if !selected.contains(where: { $0 == suite }) { selected.append(suite) }
        }
    }
    if selected.isEmpty { fail("name a suite, or all") }
    return (selected, options)
}

// The measurements that report a client's peak RSS (the end-to-end suite's, the transport suite's
// downloads) run in child processes, each of a binary of its own that links that client alone
// (`ChildProgram`, `Subprocess.child`); this process runs the suites and the other workloads.
let (selected, options) = parse(Array(CommandLine.arguments.dropFirst()))
var members: [(String, JSON)] = []
var isConsistent = true
for suite in selected {
    let report = suite.run(options)
    members.append((suite.name, report.json))
    // Every run's figures are kept in Benchmarks/results/ (the cost suite writes its own record,
    // with valgrind's version).
    if suite.name != CostBenchmark.name {
        RunRecord.write(
            suite: suite.name, figures: report.json,
            extra: [("rounds", .integer(options.rounds)), ("consistent", .bool(report.isConsistent))])
    }
    isConsistent = isConsistent && report.isConsistent
    // With --json the tables still go out, to standard error with the progress, so that one run
    // (a long one, for the e2e suite) gives both.
    if options.json { note(report.text + "\n") } else { print(report.text + "\n") }
}
if options.json { print(JSON.object(members).rendered) }
if !isConsistent {
    note(
        "sluice-bench: checksums disagree between clients, or a measurement failed; the numbers above are not "
            + "comparable")
    exit(1)
}
