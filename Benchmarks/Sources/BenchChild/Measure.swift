#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Clock, CPU time and memory readings, for the children and the parent alike. Statistics over
/// many readings are the parent's (`Measure.median`, `Measure.compete`).
public enum Measure {
    /// Nanoseconds on the monotonic clock (never goes backwards, unaffected by clock changes).
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Runs `body` once and returns its wall time in nanoseconds with its result.
    public static func time<R>(_ body: () -> R) -> (nanoseconds: UInt64, result: R) {
        let start = now()
        let result = body()
        let end = now()
        return (end &- start, result)
    }

    /// User + system CPU time of this process so far, every thread included, in µs.
    public static func cpuMicroseconds() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let user = Int(usage.ru_utime.tv_sec) * 1_000_000 + Int(usage.ru_utime.tv_usec)
        let system = Int(usage.ru_stime.tv_sec) * 1_000_000 + Int(usage.ru_stime.tv_usec)
        return user + system
    }

    /// The process's peak resident set size in KiB (`VmHWM` in /proc/self/status), or nil where
    /// that file does not exist.
    public static func peakResidentKiB() -> Int? {
        statusKiB("VmHWM")
    }

    /// The process's current resident set size in KiB (`VmRSS`), or nil where it is not known.
    public static func residentKiB() -> Int? {
        statusKiB("VmRSS")
    }

    /// A KiB figure from /proc/self/status, such as `VmHWM`, or nil where that file does not exist.
    private static func statusKiB(_ field: String) -> Int? {
        statusValue(field)
    }

    /// The number after `field:` in /proc/self/status (`VmHWM`, `Threads`), or nil.
    static func statusValue(_ field: String) -> Int? {
        guard let status = readFile("/proc/self/status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }

    /// The whole contents of a small text file, or nil if it cannot be opened.
    static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
