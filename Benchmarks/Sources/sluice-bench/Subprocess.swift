import BenchChild
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Child processes on `posix_spawn`, reaped by this code alone (Foundation's `Process` reaps its
/// children on its own thread, which would race the exit and signal handlers that stop nginx).
enum Subprocess {
    /// Starts `executable` with `arguments` and this process's environment plus `extraEnvironment`.
    /// Standard input is /dev/null; standard output goes to `output` (inherited when nil), standard
    /// error to `errorOutput` (inherited when nil).
    static func spawn(
        _ executable: String, _ arguments: [String], output: Int32? = nil, errorOutput: Int32? = nil,
        extraEnvironment: [String: String] = [:]
    ) throws(BenchmarkFailure) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let output { posix_spawn_file_actions_adddup2(&actions, output, 1) }
        if let errorOutput { posix_spawn_file_actions_adddup2(&actions, errorOutput, 2) }

        let environment = ProcessInfo.processInfo.environment.merging(extraEnvironment) { $1 }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard code == 0 else {
            throw BenchmarkFailure("cannot run \(executable): \(String(cString: strerror(code)))")
        }
        return pid
    }

    /// Waits for `pid` to end and returns its exit status (128 + the signal if a signal ended it).
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        return exitCode(status)
    }

    /// The exit status of `pid` if it has ended (reaping it), nil while it runs.
    static func poll(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == 0 { return nil }
        return result < 0 ? -1 : exitCode(status)
    }

    /// Runs `executable` to its end, capturing its standard output; standard error is inherited.
    /// With a deadline, a child still running after `deadlineSeconds` is killed (status 128 + SIGKILL).
    static func run(_ executable: String, _ arguments: [String], deadlineSeconds: Int? = nil) throws(BenchmarkFailure)
        -> (status: Int32, output: String)
    {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw BenchmarkFailure("pipe failed: \(String(cString: strerror(errno)))") }
        let pid: pid_t
        do {
            pid = try spawn(executable, arguments, output: ends[1])
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[1])
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = deadlineSeconds.map { Measure.now() + UInt64($0) * 1_000_000_000 }
        while true {
            if let deadline {
                // Wait for output or the end of the pipe, but never past the deadline.
                let now = Measure.now()
                let left = now < deadline ? Int32(min((deadline - now) / 1_000_000, 60_000)) : 0
                let ready = waitForInput(ends[0], milliseconds: max(left, 1))
                if ready == 0 && Measure.now() >= deadline {
                    kill(pid, SIGKILL)
                    break
                }
                if ready <= 0 { continue }
            }
            let count = buffer.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += buffer[..<count]
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        close(ends[0])
        return (wait(pid), String(decoding: bytes, as: UTF8.self))
    }

    /// The path of the child binary of `client` (`E2EClient.executable`): SwiftPM builds it next to
    /// this executable, since `sluice-bench` depends on it. Throws when it is not there, or not
    /// executable, with how to build it.
    static func child(_ client: E2EClient) throws(BenchmarkFailure) -> String {
        let own = currentExecutable()
        let directory = own.lastIndex(of: "/").map { String(own[...$0]) } ?? "./"
        let path = directory + client.executable
        guard access(path, X_OK) == 0 else {
            throw BenchmarkFailure(
                "the \(client.rawValue) child \(path) is missing; build every product with "
                    + "`swift build -c release --package-path Benchmarks` (or run sluice-bench with `swift run`)")
        }
        return path
    }

    /// The path of this process's executable (/proc/self/exe), whose directory holds the child
    /// binaries.
    static func currentExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return count > 0
            ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    }

    private static func exitCode(_ status: Int32) -> Int32 {
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot import.
        let signalNumber = status & 0x7F
        return signalNumber == 0 ? (status >> 8) & 0xFF : 128 + signalNumber
    }
}

/// poll(2) on one descriptor for input (outside `Subprocess`, whose own `poll` would shadow it).
private func waitForInput(_ descriptor: Int32, milliseconds: Int32) -> Int32 {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, milliseconds)
}
