#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The end-to-end suite's measurement in a child:
/// `__e2e-child <client> <workload> <port> <directory> <count> <in flight> <bulk bytes> <headers>`.
///
/// The child makes its client, warms it up, then times one run of the workload and prints one line,
/// `ns CPU-µs peak-KiB RSS-before-KiB succeeded`: wall time, CPU time (getrusage, user + system, all
/// threads), peak RSS (VmHWM) and RSS just before the run (VmRSS). The process holds that client
/// alone, so its peak is the client's own.
public enum E2EChild {
    /// The subcommand, first on a child's command line.
    public static let subcommand = "__e2e-child"

    /// Runs `arguments` (the ones after the subcommand) with the contender `makeContender` makes for
    /// `client`, the one client of this binary (or a client this binary runs, `E2EClient.binary`).
    /// Returns the exit status: 0 when every operation succeeded, 1 otherwise (the line is printed
    /// all the same), 2 on a usage error.
    static func run(
        _ arguments: [String], client: E2EClient, makeContender: (E2EContext) throws -> any E2EContender
    ) -> Int32 {
        // Only a client the workload lists (or one of the cost suite's variants of Sluice): the C
        // client with extra headers runs the small requests only (its bulk transfers would neither
        // send them nor clean up under its own name).
        guard arguments.count == 8, let named = E2EClient(rawValue: arguments[0]), named.binary == client,
            let workload = E2EWorkload.allCases.first(where: { $0.key == arguments[1] }),
            (workload.clients + workload.costOnlyClients).contains(named),
            var context = E2EContext(arguments: Array(arguments.dropFirst(2)))
        else {
            note(
                "usage: \(client.executable) \(subcommand) \(client.rawValue) <workload> <port> <directory> "
                    + "<count> <in flight> <bulk bytes> <request header lines, or an empty argument>")
            return 2
        }
        context.client = named
        let contender: any E2EContender
        do {
            contender = try makeContender(context)
        } catch {
            note("e2e: \(named.rawValue): \(error)")
            return 1
        }

        let warmUp = Self.warmUp(workload, count: context.count)
        let warm = contender.run(warmUp.workload, count: warmUp.count)
        if warm.failed > 0 {
            note("e2e: \(named.rawValue) warm-up: \(warm.failed) failed: \(warm.firstFailure ?? "?")")
        }

        let baseline = Measure.residentKiB() ?? 0
        let cpuBefore = Measure.cpuMicroseconds()
        let start = Measure.now()
        let outcome = contender.run(workload, count: context.count)
        let elapsed = Measure.now() &- start
        let cpu = Measure.cpuMicroseconds() - cpuBefore
        let peak = Measure.peakResidentKiB() ?? 0
        if workload == .download { unlink(context.downloadDestination(named)) }
        print("\(elapsed) \(cpu) \(peak) \(baseline) \(outcome.succeeded)")
        if outcome.failed > 0 || outcome.succeeded != context.count {
            note(
                "e2e: \(named.rawValue) \(workload.key): \(outcome.succeeded) of \(context.count) succeeded, "
                    + "first failure: \(outcome.firstFailure ?? "none reported")")
            return 1
        }
        return 0
    }

    /// The unmeasured run before a measured run of `count` operations of `workload`: connections
    /// open, lazy initialization done, allocators primed. Bulk workloads warm up with a few small
    /// GETs, which open the connection the transfer will use. The cost suite counts these requests
    /// too: it divides a child's whole instruction count by every request the child made.
    public static func warmUp(_ workload: E2EWorkload, count: Int) -> (workload: E2EWorkload, count: Int) {
        switch workload {
        case .sequential, .decode, .parallel, .post: return (workload, max(1, min(count / 10, 1_000)))
        case .download, .upload: return (.sequential, 16)
        case .burst: return (.parallel, max(1, min(count / 10, 1_000)))
        }
    }
}
