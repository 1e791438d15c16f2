import BenchChild
import Foundation
import Sluice
import SluiceTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Resumable downloads under a hostile server: 1,000 downloads from a MockServer that resets the
/// connection at random offsets and, now and then between two requests, changes the content and
/// its `ETag`. Each download is resumed from its resume data until it finishes (started afresh
/// when there is none); then every file is compared with the server's final content (see `content`
/// for the validators the files carry). The target
/// is no corrupted file, no unfinished download and nothing else left in the folder. Kept out of
/// `all`: it passes or fails rather than compares.
enum ResumeBenchmark: Suite {
    static let name = "resume"
    static let summary =
        "1,000 downloads resumed through random resets and content changes: corrupted files (not in all)"

    /// What the server does to one download's requests.
    struct Hostility {
        /// Chance that a reply is cut by a reset at a random byte of its body.
        var resetChance = 0.6
        /// Chance that the content and its ETag change before a reply.
        var changeChance = 0.1
        /// After this many requests for one file, replies are no longer cut (every download ends).
        var hostileRequests = 12
        /// Content sizes, in bytes.
        var sizes = 16 << 10...(512 << 10)
    }

    static func run(_ options: Options) -> SuiteReport {
        let downloads = options.quick ? 100 : 1_000
        let hostility = Hostility()
        note(
            "resume: \(downloads) downloads, resets at random offsets (\(Int(hostility.resetChance * 100))% of replies), "
                + "content changes (\(Int(hostility.changeChance * 100))%)")
        let start = Measure.now()
        let outcome = blocking { await soak(downloads: downloads, hostility: hostility) }
        let seconds = Double(Measure.now() &- start) / 1e9
        switch outcome {
        case .success(let tally): return report(tally, downloads: downloads, seconds: seconds, quick: options.quick)
        case .failure(let error):
            note("resume: \(error)")
            exit(1)
        }
    }

    /// What the soak counted.
    struct Tally: Sendable {
        var corrupted = 0
        var unfinished = 0
        var attempts = 0
        var resumed = 0
        var startedAfresh = 0
        var restarts: [String: Int] = [:]
        var resets = 0
        var contentChanges = 0
        var bytes: Int64 = 0
        var leftoverFiles = 0
    }

    /// One file the server serves, and what it did to it.
    final class ServedFile: Sendable {
        let state: Mutex<(file: MockDownload, requests: Int, version: Int)>
        init(_ file: MockDownload) { state = Mutex((file, 0, 1)) }
    }

    static func soak(downloads: Int, hostility: Hostility) async -> Result<Tally, any Error> {
        do {
            let server = try await MockServer.start()
            defer { Task { try? await server.shutdown() } }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-resume-\(getpid())")
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let counters = Mutex((resets: 0, changes: 0))
            var files: [ServedFile] = []
            for index in 0..<downloads {
                let file = ServedFile(content(version: 1, index: index, hostility: hostility))
                files.append(file)
                server.respond("/soak/\(index)") { request in
                    file.state.withLock { served -> [WireStep] in
                        served.requests += 1
                        let hostile = served.requests <= hostility.hostileRequests
                        if hostile, served.requests > 1, Double.random(in: 0..<1) < hostility.changeChance {
                            served.version += 1
                            served.file = content(version: served.version, index: index, hostility: hostility)
                            counters.withLock { $0.changes += 1 }
                        }
                        var cut: Int?
                        if hostile, Double.random(in: 0..<1) < hostility.resetChance {
                            cut = Int.random(in: 0..<served.file.body.count)
                        }
                        let steps = served.file.reply(to: request, resettingAfter: cut)
                        // A cut past the end of a shorter (206) reply does not reset it.
                        if steps.last == .reset { counters.withLock { $0.resets += 1 } }
                        return steps
                    }
                }
            }
            let client = try Sluice.Client(baseURL: server.baseURL.absoluteString)
            var tally = Tally()
            try await withThrowingTaskGroup(of: Tally.self) { group in
                var next = 0
                func add() {
                    let index = next
                    next += 1
                    group.addTask {
                        await download(index, client: client, to: directory.appendingPathComponent("file-\(index)"))
                    }
                }
                for _ in 0..<min(16, downloads) { add() }
                while let one = try await group.next() {
                    tally.unfinished += one.unfinished
                    tally.attempts += one.attempts
                    tally.resumed += one.resumed
                    tally.startedAfresh += one.startedAfresh
                    tally.restarts.merge(one.restarts, uniquingKeysWith: +)
                    if next < downloads { add() }
                }
            }
            for (index, served) in files.enumerated() {
                let expected = served.state.withLock { $0.file.body }
                let actual = try? Data(contentsOf: directory.appendingPathComponent("file-\(index)"))
                if let actual, actual != expected { tally.corrupted += 1 }
                tally.bytes += Int64(expected.count)
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            tally.leftoverFiles = names.filter { !$0.hasPrefix("file-") }.count
            (tally.resets, tally.contentChanges) = counters.withLock { ($0.resets, $0.changes) }
            return .success(tally)
        } catch {
            return .failure(error)
        }
    }

    /// A content of its own for each file and version, of a random size. Most files carry a
    /// strong ETag; one in ten only a Last-Modified date, one in ten a weak ETag with the date, and
    /// one in ten is served by a server that ignores ranges.
    static func content(version: Int, index: Int, hostility: Hostility) -> MockDownload {
        let body = MockServer.deterministicBytes(
            count: Int.random(in: hostility.sizes), offset: index * 7919 + version * 104_729)
        let date = "Wed, 01 Jan 2025 00:\(10 + version % 50):00 GMT"
        switch index % 10 {
        case 1: return MockDownload(body: body, lastModified: date)
        case 2: return MockDownload(body: body, entityTag: "W/\"\(index)-v\(version)\"", lastModified: date)
        case 3: return MockDownload(body: body, entityTag: "\"\(index)-v\(version)\"", servesRanges: false)
        default: return MockDownload(body: body, entityTag: "\"\(index)-v\(version)\"")
        }
    }

    /// Downloads `/soak/index` to `file`, resuming after every failure, at most 100 attempts.
    static func download(_ index: Int, client: Sluice.Client, to file: URL) async -> Tally {
        var tally = Tally()
        var resumeData: ResumeData?
        for _ in 0..<100 {
            tally.attempts += 1
            do {
                let task: RequestTask
                if let resumeData {
                    task = try client.download(resuming: resumeData)
                } else {
                    task = try client.download("soak/\(index)", to: file)
                }
                let restarts = Mutex<[String]>([])
                let watch = task.events.observeValues { event in
                    if case .downloadRestarted(let reason) = event.kind {
                        restarts.withLock { $0.append(String(describing: reason).prefix { $0 != "(" }.description) }
                    }
                }
                defer { watch.dispose() }
                do {
                    let response = try await task.response.value
                    for reason in restarts.withLock({ $0 }) { tally.restarts[reason, default: 0] += 1 }
                    if response.status / 100 == 2 { return tally }
                } catch {
                    for reason in restarts.withLock({ $0 }) { tally.restarts[reason, default: 0] += 1 }
                }
                resumeData = task.resumeData
                if resumeData == nil { tally.startedAfresh += 1 } else { tally.resumed += 1 }
            } catch {
                resumeData = nil
            }
        }
        tally.unfinished = 1
        return tally
    }

    private static func report(_ tally: Tally, downloads: Int, seconds: Double, quick: Bool) -> SuiteReport {
        let passed = tally.corrupted == 0 && tally.unfinished == 0 && tally.leftoverFiles == 0
        let restarts = tally.restarts.sorted { $0.key < $1.key }
        let lines = [
            "resume: \(downloads) downloads\(quick ? " (--quick)" : "") of \(formatted(Double(tally.bytes) / 1_048_576)) MiB "
                + "in \(formatted(seconds)) s",
            "server: \(grouped(tally.resets)) resets at random offsets, \(grouped(tally.contentChanges)) content changes",
            "client: \(grouped(tally.attempts)) attempts, \(grouped(tally.resumed)) resumed from resume data, "
                + "\(grouped(tally.startedAfresh)) started afresh (no resume data)",
            "restarts: "
                + (restarts.isEmpty ? "none" : restarts.map { "\($0.key) \($0.value)" }.joined(separator: ", ")),
            "corrupted files \(tally.corrupted), unfinished \(tally.unfinished), other files left \(tally.leftoverFiles)",
            "resume: \(passed ? "PASS" : "FAIL")",
        ]
        let json = JSON.object([
            ("quick", .bool(quick)), ("downloads", .integer(downloads)), ("seconds", .number(seconds)),
            ("bytes", .integer(Int(tally.bytes))), ("resets", .integer(tally.resets)),
            ("content_changes", .integer(tally.contentChanges)), ("attempts", .integer(tally.attempts)),
            ("resumed", .integer(tally.resumed)), ("started_afresh", .integer(tally.startedAfresh)),
            ("restarts", .object(restarts.map { ($0.key, .integer($0.value)) })),
            ("corrupted_files", .integer(tally.corrupted)), ("unfinished", .integer(tally.unfinished)),
            ("leftover_files", .integer(tally.leftoverFiles)), ("pass", .bool(passed)),
        ])
        return SuiteReport(text: lines.joined(separator: "\n"), json: json, isConsistent: passed)
    }

    /// Runs async work to its end from synchronous code (the suites' `run` is synchronous).
    private static func blocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let box = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let value = await work()
            box.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return box.withLock { $0! }
    }
}
