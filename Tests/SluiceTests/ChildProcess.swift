import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program the tests run as a child process, started with `posix_spawn`.
///
/// Not Foundation's `Process`: to close the parent's descriptors in the child, it first finds the
/// highest open one in /proc/self/fd, copying each entry's name past the end of its record
/// (swift-corelibs-foundation#5472), which ends a run under the address sanitizer. Here the spawn
/// closes every descriptor above standard error itself (`closefrom`), so a child never holds a
/// test's socket open, and the parent reads nothing.
///
/// A child starts with no signal blocked and every signal's default action, whatever the spawning
/// thread blocks or ignores; its standard input is /dev/null and its output and errors are discarded
/// (or captured, by `run`). Call `wait()` (or `run`) for every child, or it stays a zombie.
final class ChildProcess: Sendable {
    /// How a child ended.
    enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exit(Int32)
        case signal(Int32)

        /// Decodes a `waitpid` status (the WIFEXITED/WTERMSIG macros, which Swift cannot import).
        init(status: Int32) {
            self = status & 0x7F == 0 ? .exit((status >> 8) & 0xFF) : .signal(status & 0x7F)
        }

        var description: String {
            switch self {
            case .exit(let code): "exit \(code)"
            case .signal(let number): "signal \(number)"
            }
        }
    }

    /// How a child run to its end ended, and what it wrote.
    struct Outcome: Sendable {
        let termination: Termination
        let standardOutput: [UInt8]
        let standardError: [UInt8]
    }

    /// A child that could not be started.
    struct SpawnError: Error, CustomStringConvertible {
        let executable: String
        let code: Int32
        var description: String { "\(executable) could not be started: \(String(cString: strerror(code)))" }
    }

    /// The child's process id; it names the child until `wait()` or `isRunning` reaps it.
    let pid: pid_t
    /// Set once the child is reaped: its pid may name another process from then on.
    private let termination = Mutex<Termination?>(nil)

    /// The read end of the pipe the child writes its errors to, when they are captured.
    private let errorsDescriptor: Int32?

    /// Starts `executable` (a path: PATH is not searched) with `arguments`, in `environment` when
    /// given, else in the test process's own. Its output is discarded, and so are its errors unless
    /// `capturingErrors` (then read them with `capturedErrors()`).
    init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, capturingErrors: Bool = false
    ) throws(SpawnError) {
        guard capturingErrors else {
            pid = try Self.spawn(executable, arguments, environment: environment, output: nil, errors: nil)
            errorsDescriptor = nil
            return
        }
        let errors = try Self.makePipe(for: executable)
        defer { close(errors.write) }
        do {
            pid = try Self.spawn(executable, arguments, environment: environment, output: nil, errors: errors.write)
        } catch {
            close(errors.read)
            throw error
        }
        errorsDescriptor = errors.read
    }

    private init(pid: pid_t) {
        self.pid = pid
        errorsDescriptor = nil
    }

    deinit {
        if let errorsDescriptor { close(errorsDescriptor) }
    }

    /// What the child wrote to its standard error, read to its end (so once it has ended). Nobody
    /// reads the pipe before then, so a child that writes more than it holds (64 KiB) waits: ample
    /// for a crash's or a sanitizer's report.
    func capturedErrors() -> [UInt8] {
        guard let errorsDescriptor else { return [] }
        return Self.drain([errorsDescriptor])[0]
    }

    /// Runs `executable` to its end, capturing its output and errors.
    static func run(_ executable: String, _ arguments: [String]) throws(SpawnError) -> Outcome {
        let output = try makePipe(for: executable)
        defer { close(output.read) }
        let errors: (read: Int32, write: Int32)
        do {
            errors = try makePipe(for: executable)
        } catch {
            close(output.write)
            throw error
        }
        defer { close(errors.read) }
        let pid: pid_t
        do {
            defer {
                close(output.write)
                close(errors.write)
            }
            pid = try spawn(executable, arguments, environment: nil, output: output.write, errors: errors.write)
        }
        // Both at once: a child blocked on a full errors pipe would never close its output.
        let collected = drain([output.read, errors.read])
        let termination = ChildProcess(pid: pid).wait()
        return Outcome(termination: termination, standardOutput: collected[0], standardError: collected[1])
    }

    /// Whether the child still runs; reaps it if it has ended.
    var isRunning: Bool {
        termination.withLock { termination in
            guard termination == nil else { return false }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == 0 || (result < 0 && errno == EINTR) { return true }
            precondition(result == pid, "waitpid(\(pid)) failed: errno \(errno)")
            termination = Termination(status: status)
            return false
        }
    }

    /// Waits for the child to end, reaps it and returns how it ended.
    @discardableResult
    func wait() -> Termination {
        // Waits without reaping (WNOWAIT) and without the lock, so `send` may run meanwhile: until
        // reaped, the child's pid cannot be given to another process.
        var info = siginfo_t()
        while termination.withLock({ $0 }) == nil,
            waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR
        {}
        while isRunning {}  // reaps it at once: it has exited
        return termination.withLock { $0! }
    }

    /// Sends `signal` to the child, unless it is reaped already.
    func send(_ signal: Int32) {
        termination.withLock { termination in
            if termination == nil { _ = kill(pid, signal) }
        }
    }

    private static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String]?, output: Int32?, errors: Int32?
    ) throws(SpawnError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        for (source, target) in [(output, STDOUT_FILENO), (errors, STDERR_FILENO)] {
            if let source {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            }
        }
        // glibc 2.34 has it, declared only under _GNU_SOURCE, which Swift's Glibc module leaves out.
        guard let addCloseFrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            throw SpawnError(executable: executable, code: ENOSYS)
        }
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        _ = unsafeBitCast(addCloseFrom, to: AddCloseFrom.self)(&actions, STDERR_FILENO + 1)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }
        var pid: pid_t = 0
        let code =
            if let envp {
                posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            } else {
                posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
            }
        guard code == 0 else { throw SpawnError(executable: executable, code: code) }
        return pid
    }

    /// A pipe whose ends are closed on exec: the spawn gives the child its write end as a standard
    /// stream (dup2 clears the flag on the copy).
    private static func makePipe(for executable: String) throws(SpawnError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SpawnError(executable: executable, code: errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Reads each descriptor to its end, all at once; returns what each gave.
    private static func drain(_ descriptors: [Int32]) -> [[UInt8]] {
        var collected = Array(repeating: [UInt8](), count: descriptors.count)
        var open = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var owners = Array(descriptors.indices)
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while !open.isEmpty {
            if poll(&open, nfds_t(open.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for slot in open.indices.reversed() where open[slot].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(open[slot].fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    collected[owners[slot]] += buffer[..<count]
                } else if count == 0 || errno != EINTR {
                    open.remove(at: slot)
                    owners.remove(at: slot)
                }
            }
        }
        return collected
    }
}
