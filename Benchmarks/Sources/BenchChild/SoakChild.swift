#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The soak suite's run in Sluice's child:
/// `__soak <port> <requests> <at once> <sequential> <cancelled> <big bytes>`.
///
/// The child prints one line of `key=value` pairs (integers), the figures the parent reports
/// (`SoakChild.Key`); a first failure, if any, goes to standard error.
public enum SoakChild {
    /// The subcommand, first on the child's command line.
    public static let subcommand = "__soak"
    /// The longest the child may take before the parent kills it.
    public static let deadlineSeconds = 900
    /// How long the child stays idle before it counts its baseline of fds and threads: libdispatch
    /// retires an idle worker thread after about 5 s.
    public static let idleSeconds = 7
    /// The longest the child waits for fds and threads to fall back to their baseline at the end.
    public static let settleSeconds = 15
    /// How many batches the sequential phase is split into, RSS sampled after each.
    public static let batches = 10

    /// How much work one run does.
    public struct Plan: Sendable {
        /// nginx's port on 127.0.0.1.
        public var port: Int
        /// Requests of the concurrent phase.
        public var requests: Int
        /// How many of them are in flight at once.
        public var atOnce: Int
        /// Requests of the sequential phase, one after the other.
        public var sequential: Int
        /// Requests of the cancellation phase, each disposed at a random moment.
        public var cancelled: Int
        /// Bytes of the large body some cancelled requests fetch (nginx's `/big.bin`).
        public var bigBytes: Int

        /// A plan with these counts.
        public init(port: Int, requests: Int, atOnce: Int, sequential: Int, cancelled: Int, bigBytes: Int) {
            self.port = port
            self.requests = requests
            self.atOnce = atOnce
            self.sequential = sequential
            self.cancelled = cancelled
            self.bigBytes = bigBytes
        }

        /// The child's arguments after the subcommand.
        public var arguments: [String] {
            [port, requests, atOnce, sequential, cancelled, bigBytes].map(String.init)
        }

        /// Reads the arguments `arguments` wrote; nil if they are malformed.
        public init?(arguments: [String]) {
            let numbers = arguments.compactMap { Int($0) }
            guard arguments.count == 6, numbers.count == 6, numbers.allSatisfy({ $0 > 0 }) else { return nil }
            self.init(
                port: numbers[0], requests: numbers[1], atOnce: numbers[2], sequential: numbers[3],
                cancelled: numbers[4], bigBytes: numbers[5])
        }

        /// `http://127.0.0.1:<port>/`.
        public var baseURL: String { "http://127.0.0.1:\(port)/" }
    }
}

/// What a process holds, read from /proc/self (Linux): what a leak would make grow.
extension Measure {
    /// Open file descriptors (the entries of /proc/self/fd, less the one that reads them), or nil.
    public static func openDescriptors() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { name in
                name[0] == UInt8(ascii: ".") && (name[1] == 0 || (name[1] == UInt8(ascii: ".") && name[2] == 0))
            }
            if !isDot { count += 1 }
        }
        return count - 1
    }

    /// The process's threads (`Threads` in /proc/self/status), or nil.
    public static func threads() -> Int? {
        statusValue("Threads")
    }

    /// The resident set size in bytes from /proc/self/statm (its second field, in pages), or nil:
    /// cheaper than /proc/self/status, for sampling between batches.
    public static func residentBytes() -> Int? {
        guard let text = readFile("/proc/self/statm") else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }
}
