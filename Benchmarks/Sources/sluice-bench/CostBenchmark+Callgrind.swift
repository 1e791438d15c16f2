import BenchChild
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs the e2e suite's children under valgrind's callgrind, one measurement each, and reads what
/// callgrind counted.
struct Callgrind {
    /// The valgrind executable.
    let valgrind: String
    /// What `valgrind --version` prints, e.g. `valgrind-3.19.0`.
    let version: String
    /// Where the children's copies and callgrind's files go (a folder of nginx's temporary
    /// directory, deleted with it).
    let directory: String
    /// The child binary each client runs under valgrind, by the client of the binary.
    private let binaries: [E2EClient: String]

    /// The valgrind executable on the `PATH`; throws, saying how to install it, when there is none.
    static func valgrind() throws(BenchmarkFailure) -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let found = path.split(separator: ":").map { "\($0)/valgrind" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let found else {
            throw BenchmarkFailure(
                "valgrind is not installed (Debian: apt-get install valgrind); the cost suite needs it")
        }
        return found
    }

    /// Prepares `directory` and copies of the C and Sluice children in it.
    ///
    /// The copies have no debug information (`objcopy --strip-debug`; their symbols stay): valgrind
    /// 3.19 cannot read the DWARF that Swift 6 writes. They keep their names, since Sluice's
    /// `User-Agent` names its executable and the C client sends the same line.
    init(valgrind: String, directory: String) throws(BenchmarkFailure) {
        self.valgrind = valgrind
        self.directory = directory
        guard mkdir(directory, 0o755) == 0 else {
            throw BenchmarkFailure("cannot create \(directory): \(String(cString: strerror(errno)))")
        }
        let outcome = try Subprocess.run(valgrind, ["--version"])
        version = outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let objcopy = ["/usr/bin/objcopy", "/bin/objcopy"].first { FileManager.default.isExecutableFile(atPath: $0) }
        var binaries: [E2EClient: String] = [:]
        for client in [E2EClient.c, .sluice, .ahc, .urlsession] {
            let original = try Subprocess.child(client)
            let copy = directory + "/" + client.executable
            guard let objcopy, try Subprocess.run(objcopy, ["--strip-debug", original, copy]).status == 0 else {
                note("cost: cannot strip \(client.executable)'s debug information (objcopy); valgrind may not read it")
                binaries[client] = original
                continue
            }
            binaries[client] = copy
        }
        self.binaries = binaries
    }

    /// Runs `client`'s child on `workload` under callgrind and returns what callgrind counted over
    /// the child's whole life; throws when the child or valgrind failed, or not every request
    /// succeeded.
    func profile(_ client: E2EClient, _ workload: E2EWorkload, _ context: E2EContext) throws(BenchmarkFailure)
        -> CallgrindProfile
    {
        guard let binary = binaries[client.binary] else { throw BenchmarkFailure("no child binary for \(client)") }
        let file = directory + "/\(client.rawValue)-\(workload.key)-\(context.count).out"
        let arguments =
            [
                "--tool=callgrind", "--quiet", "--callgrind-out-file=" + file,
                // Names and positions written out in full: simpler to read back.
                "--compress-strings=no", "--compress-pos=no",
                binary, E2EChild.subcommand, client.rawValue, workload.key,
            ] + context.arguments
        // The child's own waits give up after `E2EContext.deadlineSeconds` (minus 10 s); a child
        // that hangs under valgrind beyond that is killed.
        let outcome = try Subprocess.run(valgrind, arguments, deadlineSeconds: E2EContext.deadlineSeconds + 60)
        // The child's one line: ns, CPU µs, peak KiB, baseline KiB, succeeded.
        let fields = outcome.output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard outcome.status == 0, fields.count == 5, fields[4] == context.count else {
            throw BenchmarkFailure(
                "the child failed under callgrind (status \(outcome.status)): "
                    + outcome.output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        defer {
            // For profiling: `SLUICE_BENCH_KEEP_CALLGRIND=<folder>` keeps each callgrind file there
            // (read it with `callgrind_annotate --tree=caller`).
            if let keep = ProcessInfo.processInfo.environment["SLUICE_BENCH_KEEP_CALLGRIND"] {
                try? FileManager.default.copyItem(
                    atPath: file, toPath: keep + "/" + (file as NSString).lastPathComponent)
            }
            unlink(file)
        }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw BenchmarkFailure("callgrind wrote no profile to \(file)")
        }
        return try CallgrindProfile(parsing: text)
    }
}

/// What callgrind counted over one process's life: instructions (in all and by object file) and
/// calls to `swift_allocObject`.
struct CallgrindProfile {
    /// Where instructions ran, by the object file they belong to.
    enum Part: String, CaseIterable {
        /// libcurl.
        case libcurl
        /// The C library and the dynamic loader.
        case libc
        /// libswiftCore: allocation, reference counting, metadata, the standard library's generic
        /// code.
        case swiftRuntime = "swift_runtime"
        /// The other Swift libraries: Concurrency, Dispatch, FoundationEssentials, Synchronization, …
        case swiftLibraries = "swift_libraries"
        /// The child's own executable: Sluice and its reactive core (linked statically) and the
        /// harness; for the C child, the C client and the harness.
        case program
        /// Everything else (libcurl's other dependencies, the vDSO).
        case other

        /// The column title in a table.
        var label: String {
            switch self {
            case .libcurl: return "libcurl"
            case .libc: return "libc"
            case .swiftRuntime: return "Swift runtime"
            case .swiftLibraries: return "Swift libs"
            case .program: return "program"
            case .other: return "other"
            }
        }

        /// The part of an object file, by its path.
        init(object path: Substring) {
            let name = path.split(separator: "/").last.map(String.init) ?? String(path)
            if name.hasPrefix("libcurl") {
                self = .libcurl
            } else if ["libc.so", "libc-", "ld-linux", "libm.so", "libpthread", "libdl", "librt"].contains(where: {
                name.hasPrefix($0)
            }) {
                self = .libc
            } else if name.hasPrefix("libswiftCore") {
                self = .swiftRuntime
            } else if ["libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime"].contains(
                where: { name.hasPrefix($0) })
            {
                self = .swiftLibraries
            } else if name.hasPrefix("sluice-bench") {
                self = .program
            } else {
                self = .other
            }
        }
    }

    /// Instructions executed, every thread included (callgrind's `totals`).
    var instructions: Int
    /// Calls to `swift_allocObject`: Swift objects allocated.
    var allocations: Int
    /// Instructions by part; they add up to `instructions`.
    var byPart: [Part: Int]

    /// The instructions that ran in `part`.
    func instructions(in part: Part) -> Int { byPart[part] ?? 0 }

    /// Reads a callgrind output file written with `--compress-strings=no --compress-pos=no` (names
    /// in the compressed form, `(id) name` and then `(id)`, are read too).
    ///
    /// The file lists functions (`ob=` the object file, `fn=` the function), each followed by cost
    /// lines (`position instructions`, its own cost) and its calls: `cfn=` the function called,
    /// `calls=count target`, then one cost line, the inclusive cost of those calls, which is not the
    /// caller's own. A function's own costs, summed by object file, add up to the total.
    init(parsing text: String) throws(BenchmarkFailure) {
        var objectNames: [Substring: Substring] = [:]
        var functionNames: [Substring: Substring] = [:]
        var part = Part.other
        var callee: Substring = ""
        var isCallCost = false
        var total: Int?
        var allocations = 0
        var byPart: [Part: Int] = [:]

        /// The name in `value`, remembering or looking up a compressed one.
        func name(_ value: Substring, _ names: inout [Substring: Substring]) -> Substring {
            guard value.hasPrefix("("), let close = value.firstIndex(of: ")") else { return value }
            let id = value[...close]
            let rest = value[value.index(after: close)...].drop { $0 == " " }
            if rest.isEmpty { return names[id] ?? "" }
            names[id] = rest
            return rest
        }

        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let first = line.first else { continue }
            if first.isNumber || first == "+" || first == "-" || first == "*" {
                // A cost line: the position, then the instructions (the only event counted; a
                // line without it counts none).
                let fields = line.split(separator: " ")
                if isCallCost {
                    isCallCost = false
                } else if fields.count > 1, let cost = Int(fields[1]) {
                    byPart[part, default: 0] += cost
                }
            } else if line.hasPrefix("ob=") {
                part = Part(object: name(line.dropFirst(3), &objectNames))
            } else if line.hasPrefix("cob=") {
                _ = name(line.dropFirst(4), &objectNames)
            } else if line.hasPrefix("fn=") {
                _ = name(line.dropFirst(3), &functionNames)
            } else if line.hasPrefix("cfn=") {
                callee = name(line.dropFirst(4), &functionNames)
            } else if line.hasPrefix("calls=") {
                isCallCost = true
                // `swift_allocObject`, or `swift_allocObject'2` had it recursed.
                if callee == "swift_allocObject" || callee.hasPrefix("swift_allocObject'"),
                    let count = line.dropFirst(6).split(separator: " ").first.flatMap({ Int($0) })
                {
                    allocations += count
                }
            } else if line.hasPrefix("totals:") || (total == nil && line.hasPrefix("summary:")) {
                total = line.split(separator: " ").last.flatMap { Int($0) }
            }
        }
        guard let total else { throw BenchmarkFailure("the callgrind profile has no totals") }
        let sum = byPart.values.reduce(0, +)
        guard sum == total else {
            throw BenchmarkFailure("the callgrind profile's own costs add up to \(sum), not its total \(total)")
        }
        instructions = total
        self.allocations = allocations
        self.byPart = byPart
    }
}
