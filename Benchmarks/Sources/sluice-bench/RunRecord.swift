import BenchChild
import Foundation
import Sluice

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The file every run of a suite leaves in `Benchmarks/results/`, kept in git:
/// `<suite>-<date>-<commit>.json`, with the date, the commit measured, the machine and the figures,
/// so that runs at different commits can be compared.
enum RunRecord {
    /// Writes the record of a run of `suite` whose figures are `figures` (the suite's JSON member),
    /// with `extra` members about the run; says where on standard error, or why it could not.
    static func write(suite: String, figures: JSON, extra: [(String, JSON)]) {
        guard let package = packageDirectory() else {
            note("\(suite): the Benchmarks package's folder was not found; no record written")
            return
        }
        let commit = git(["rev-parse", "--short", "HEAD"], in: package) ?? "unknown"
        // Changes to tracked files (the record itself, and any other new file, do not count).
        let changes = git(["status", "--porcelain", "--untracked-files=no"], in: package)
        let (date, time) = utcNow()
        let record = JSON.object(
            [
                ("suite", .string(suite)),
                ("date", .string(date + "T" + time + "Z")),
                ("commit", .string(commit)),
                ("uncommitted_changes", changes.map { .bool(!$0.isEmpty) } ?? .string("unknown")),
                (
                    "machine",
                    .object([
                        ("arch", .string(machineArchitecture())),
                        ("cpus", .integer(sysconf(Int32(_SC_NPROCESSORS_ONLN)))),
                        ("cpu_model", .string(cpuModel() ?? "unknown")),
                    ])
                ),
                ("libcurl", .string(SluiceInfo.libcurlVersion)),
            ] + extra + [(suite, figures)])

        let folder = package + "/results"
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            // A second run of the same commit on the same day gets a file of its own.
            let stem = folder + "/\(suite)-\(date)-\(commit)"
            var path = stem + ".json"
            var index = 2
            while FileManager.default.fileExists(atPath: path) {
                path = stem + "-\(index).json"
                index += 1
            }
            try Data((record.pretty() + "\n").utf8).write(to: URL(fileURLWithPath: path))
            note("\(suite): figures written to Benchmarks/results/\(path.split(separator: "/").last ?? "")")
        } catch {
            note("\(suite): cannot write the record in \(folder): \(error)")
        }
    }

    /// The Benchmarks package's folder: the one that holds the build folder this executable runs
    /// from (`<package>/.build/…/sluice-bench`), else the one this source file was compiled from.
    private static func packageDirectory() -> String? {
        let executable = Subprocess.currentExecutable().split(separator: "/", omittingEmptySubsequences: false)
        var candidates: [String] = []
        if let build = executable.lastIndex(of: ".build") {
            candidates.append(executable[..<build].joined(separator: "/"))
        }
        // …/Benchmarks/Sources/sluice-bench/RunRecord.swift
        candidates.append(
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().path)
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/Sources/sluice-bench") }
    }

    /// What `git arguments` prints in `directory`, trimmed; nil when git is missing or fails.
    private static func git(_ arguments: [String], in directory: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard
            let executable = path.split(separator: ":").map({ "\($0)/git" }).first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            }),
            let outcome = try? Subprocess.run(executable, ["-C", directory] + arguments), outcome.status == 0
        else { return nil }
        return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Today's date and the time, in UTC: `YYYY-MM-DD` and `hh:mm:ss`.
    private static func utcNow() -> (date: String, time: String) {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return (
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))",
            "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        )
    }

    /// What `uname -m` prints, e.g. `x86_64`.
    private static func machineArchitecture() -> String {
        var names = utsname()
        guard uname(&names) == 0 else { return "unknown" }
        return withUnsafeBytes(of: &names.machine) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// The CPU's model name, from /proc/cpuinfo (its first `model name` line).
    private static func cpuModel() -> String? {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        for line in info.split(separator: "\n") where line.hasPrefix("model name") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}
