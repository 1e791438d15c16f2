import Foundation
import SluiceTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A process may exit at any moment while a transport works: its loop thread may be starting
/// libcurl and OpenSSL, in a TLS handshake or mid-transfer when the main thread runs the exit
/// handlers. OpenSSL's own exit handler used to free its state under the loop thread, which then
/// crashed (about 1 in 100 idle processes, 1 in 20 fetching over TLS).
///
/// Each child is `SluiceExitChild`, built next to the test binary; it exits after a random pause.
@Suite("Exiting while the transport works")
struct ExitWhileWorkingTests {
    /// How many children, and how many run at once.
    private static let childCount = 400
    private static let parallel = 8

    /// The child executable, next to this test binary.
    private static var childExecutable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("SluiceExitChild")
    }

    @Test func aProcessExitsCleanlyWhateverItsLoopThreadIsDoing() async throws {
        let executable = Self.childExecutable
        try #require(
            FileManager.default.isExecutableFile(atPath: executable.path), "\(executable.path) was not built")
        try await withServer { server in
            // nginx over TLS, with MockServer behind it for the transfers that last.
            let nginx = TLSNginx.isAvailable ? try await TLSNginx.start(upstreamPort: server.port) : nil
            defer { nginx?.stop() }
            let drip = server.url(for: .drip(bytes: 64_000, chunks: 64, interval: .milliseconds(2)))
            let tlsDrip = nginx?.url("/upstream" + drip.path + "?" + (drip.query ?? ""))
            var children: [[String]] = []
            for index in 0..<Self.childCount {
                // Idle children exit within the first milliseconds, while the loop thread starts
                // libcurl and OpenSSL; the others as their transfer connects, shakes hands or runs.
                let child: [String]
                switch index % 4 {
                case 0: child = ["idle", "http://127.0.0.1:1/", "\(Int.random(in: 0..<3_000))"]
                case 1: child = ["get", drip.absoluteString, "\(Int.random(in: 0..<80_000))"]
                case 2:
                    let url = nginx?.url("/protocol") ?? drip
                    child = ["get", url.absoluteString, "\(Int.random(in: 0..<30_000))"]
                default:
                    child = ["get", (tlsDrip ?? drip).absoluteString, "\(Int.random(in: 0..<80_000))"]
                }
                children.append(child)
            }
            let outcomes = await Self.run(executable, children)
            let failures = zip(children, outcomes).filter { $0.1 != "exit 0" }
            #expect(
                failures.isEmpty,
                "\(failures.count) of \(children.count) children did not exit cleanly: \(failures.prefix(10))")
            // The children did reach the server (directly, or through nginx): they exited mid-transfer.
            #expect(!server.requests(to: drip.path).isEmpty)
        }
    }

    /// Runs each child (its arguments), `parallel` at a time, on a thread of its own rather than the
    /// tests' shared pool; returns how each ended ("exit 0", "signal 11", "hung"), with what it wrote
    /// to its standard error when that was not cleanly.
    private static func run(_ executable: URL, _ children: [[String]]) async -> [String] {
        await withCheckedContinuation { continuation in
            Thread {
                var outcomes: [String] = []
                var environment = ProcessInfo.processInfo.environment
                // A crash ends the child at once instead of waiting for Swift's backtracer.
                environment["SWIFT_BACKTRACE"] = "enable=no"
                for batch in stride(from: 0, to: children.count, by: parallel) {
                    let processes = children[batch..<min(batch + parallel, children.count)].map { arguments in
                        Result { () throws(ChildProcess.SpawnError) in
                            try ChildProcess(
                                executable.path, arguments, environment: environment, capturingErrors: true)
                        }
                    }
                    // A hang detector: a child takes well under a second.
                    let deadline = ContinuousClock.now + .seconds(30)
                    for started in processes {
                        let process: ChildProcess
                        switch started {
                        case .success(let child): process = child
                        case .failure(let error):
                            outcomes.append("not started: \(error)")
                            continue
                        }
                        while process.isRunning && ContinuousClock.now < deadline { usleep(2_000) }
                        if process.isRunning {
                            process.send(SIGKILL)
                            process.wait()
                            outcomes.append("hung")
                            continue
                        }
                        // What a child that failed wrote (a crash's message, a sanitizer's report) says why.
                        let ended = process.wait()
                        let errors = ended == .exit(0) ? "" : String(decoding: process.capturedErrors(), as: UTF8.self)
                        outcomes.append(errors.isEmpty ? "\(ended)" : "\(ended): \(errors)")
                    }
                }
                continuation.resume(returning: outcomes)
            }.start()
        }
    }
}
