import BenchChild
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A private nginx on 127.0.0.1 for the transport and end-to-end suites, with its own configuration,
/// logs and files in a temporary directory, listening on a free port.
///
/// It serves the routes of `NginxRoutes` (shared with the child binaries, which request them):
/// `/small`, a fixed body of `smallPayload.utf8.count` bytes, and `/big.bin`, a sparse file (its
/// bytes come from the page cache's zero pages, so the disk is never the bottleneck), and any extra
/// files the caller gives to `start` (`.json` ones as application/json). It takes POSTs of any size
/// at `/post` and `/upload`: nginx reads every byte of the body before it answers (a `mirror`
/// subrequest that needs the body, to a location that drops it), then `/post` answers `ok` and
/// `/upload` the length of the request it read, head and body, so a client can check that all of it
/// arrived.
/// All over keep-alive connections that nginx never closes during a run. nginx runs in the
/// foreground as a child of this process; `stop()` ends it, and so does the exit of this process,
/// by any `exit` or by SIGINT, SIGTERM or SIGHUP.
final class LocalNginx {
    /// The port nginx listens on, on 127.0.0.1 only.
    let port: Int
    /// The nginx executable that runs.
    let executable: String
    /// The temporary directory of the configuration, logs and files; deleted by `stop()`.
    let directory: String

    /// The file nginx serves at `path` (a path that starts with `/`).
    func file(_ path: String) -> String { directory + "/www" + path }

    /// `http://127.0.0.1:<port>` followed by `path`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Installs nginx if it is missing, writes the configuration and files, starts it and waits
    /// until it accepts connections.
    /// With `pinWorker`, the worker runs on the last CPU (when there are two or more). `files` are
    /// served too, by path (e.g. `/item.json`).
    static func start(
        bigFileBytes: Int64, pinWorker: Bool, files: [String: Data] = [:]
    ) throws(BenchmarkFailure) -> LocalNginx {
        let executable = try installedExecutable()
        var lastFailure = BenchmarkFailure("nginx did not start")
        // A free port can be taken by someone else between our probe and nginx's bind: try again.
        for _ in 0..<3 {
            do {
                return try LocalNginx(
                    executable: executable, bigFileBytes: bigFileBytes, pinWorker: pinWorker, files: files)
            } catch {
                lastFailure = error
                note("nginx: \(error); trying another port")
            }
        }
        throw lastFailure
    }

    private init(
        executable: String, bigFileBytes: Int64, pinWorker: Bool, files: [String: Data]
    ) throws(BenchmarkFailure) {
        self.executable = executable
        directory = try Self.makeDirectory()
        port = try Self.freePort()
        Self.registerCleanup()
        Self.cleanupState.withLock { $0.directory = directory }
        let pid: pid_t
        do {
            try Self.writeFiles(
                in: directory, bigFileBytes: bigFileBytes, files: files, port: port, pinWorker: pinWorker)
            // -e: the error log before the configuration is read, so nginx never touches /var/log.
            let arguments = ["-p", directory + "/", "-c", directory + "/nginx.conf", "-e", directory + "/error.log"]
            let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
            defer { close(null) }
            pid = try Subprocess.spawn(executable, arguments, output: null, errorOutput: null)
        } catch {
            Self.removeDirectory()
            throw error
        }
        Self.masterPID.store(pid, ordering: .sequentiallyConsistent)
        try waitUntilReady(pid)
    }

    /// Polls the port until nginx accepts a connection, for at most five seconds.
    private func waitUntilReady(_ pid: pid_t) throws(BenchmarkFailure) {
        for _ in 0..<100 {
            if Subprocess.poll(pid) != nil {
                let log = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
                Self.masterPID.store(0, ordering: .sequentiallyConsistent)
                Self.removeDirectory()
                let lines = log.split(separator: "\n").suffix(3).joined(separator: " | ")
                throw BenchmarkFailure("nginx exited at start: \(lines)")
            }
            if Self.accepts(port: port) { return }
            usleep(50_000)
        }
        Self.stopMaster()
        throw BenchmarkFailure("nginx did not accept connections on 127.0.0.1:\(port) within 5 s")
    }

    /// Stops nginx (SIGQUIT, then SIGTERM and SIGKILL if it lingers) and deletes its directory.
    func stop() {
        Self.stopMaster()
    }

    // MARK: Files

    private static func makeDirectory() throws(BenchmarkFailure) -> String {
        var template = Array("/tmp/sluice-bench-nginx.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) }
        guard let path = made else { throw BenchmarkFailure("mkdtemp failed: \(String(cString: strerror(errno)))") }
        // nginx's workers drop root for "nobody": they must be able to walk in and read.
        chmod(path, 0o755)
        return path
    }

    private static func writeFiles(
        in directory: String, bigFileBytes: Int64, files: [String: Data], port: Int, pinWorker: Bool
    ) throws(BenchmarkFailure) {
        mkdir(directory + "/www", 0o755)
        for (path, contents) in files {
            do {
                try contents.write(to: URL(fileURLWithPath: directory + "/www" + path))
            } catch {
                throw BenchmarkFailure("cannot write \(path): \(error)")
            }
        }
        let big = directory + "/www" + NginxRoutes.bigPath
        let descriptor = open(big, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0, ftruncate(descriptor, off_t(bigFileBytes)) == 0 else {
            throw BenchmarkFailure(
                "cannot make the \(bigFileBytes)-byte file \(big): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        // With two or more CPUs the worker gets the last one and the clients the first (see
        // `TransportBenchmark.pinToFirstCPU`): round trips then always cross between the same two
        // CPUs instead of depending on where the scheduler happens to put both ends.
        let cpus = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let workerAffinity =
            pinWorker && cpus >= 2 ? "worker_cpu_affinity 1" + String(repeating: "0", count: cpus - 1) + ";" : ""
        let configuration = """
            worker_processes 1;
            \(workerAffinity)
            daemon off;
            master_process on;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events {
                worker_connections 1024;
            }
            http {
                access_log off;
                sendfile on;
                tcp_nopush on;
                tcp_nodelay on;
                gzip off;
                keepalive_requests 1000000;
                keepalive_timeout 60s;
                default_type application/octet-stream;
                types {
                    application/json json;
                }
                # Request bodies nginx must read whole are kept here while it reads them.
                client_body_temp_path \(directory)/body;
                server {
                    listen 127.0.0.1:\(port);
                    root \(directory)/www;
                    location = \(NginxRoutes.smallPath) {
                        default_type text/plain;
                        return 200 "\(NginxRoutes.smallPayload)";
                    }
                    location / {
                    }
                    # The mirror needs the whole body, so nginx reads all of it (into memory or the
                    # temporary file) before the content phase, where the static module finds no
                    # file and error_page hands over to the answer. A plain `return`, or try_files
                    # (which runs before the mirror), would answer first and leave the body unread.
                    location = \(NginxRoutes.postPath) {
                        mirror /discarded;
                        mirror_request_body on;
                        log_not_found off;
                        error_page 404 = @ok;
                    }
                    location = \(NginxRoutes.uploadPath) {
                        client_max_body_size 0;
                        client_body_buffer_size 1m;
                        mirror /discarded;
                        mirror_request_body on;
                        log_not_found off;
                        error_page 404 = @length;
                    }
                    location = /discarded {
                        internal;
                        client_max_body_size 0;
                        return 204;
                    }
                    location @ok {
                        default_type text/plain;
                        return 200 "ok";
                    }
                    location @length {
                        default_type text/plain;
                        return 200 "$request_length";
                    }
                }
            }

            """
        do {
            try configuration.write(toFile: directory + "/nginx.conf", atomically: false, encoding: .utf8)
        } catch {
            throw BenchmarkFailure("cannot write nginx.conf: \(error)")
        }
    }

    // MARK: Sockets

    /// A port on 127.0.0.1 that was free a moment ago: the kernel's pick for a bind to port 0.
    private static func freePort() throws(BenchmarkFailure) -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchmarkFailure("socket failed: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { throw BenchmarkFailure("cannot bind 127.0.0.1:0: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether a TCP connection to 127.0.0.1:`port` succeeds.
    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// 127.0.0.1:`port`; the only address this benchmark ever talks to.
    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    // MARK: Installation

    /// The nginx executable, installed from Debian's packages if none is found.
    private static func installedExecutable() throws(BenchmarkFailure) -> String {
        if let found = findExecutable() { return found }
        note("transport: nginx is not installed; installing it with apt-get")
        let attempts: [[String]] = [
            ["install", "-y", "-q", "nginx-light"],
            ["update", "-q"],
            ["install", "-y", "-q", "nginx-light"],
            ["install", "-y", "-q", "nginx"],
        ]
        for arguments in attempts {
            let status = runTool("apt-get", arguments)
            if arguments[0] == "install", status == 0, let found = findExecutable() { return found }
        }
        throw BenchmarkFailure(
            "nginx is missing and apt-get could not install it (as root: apt-get install nginx-light)")
    }

    private static func findExecutable() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates =
            ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"]
            + path.split(separator: ":").map { "\($0)/nginx" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs apt-get to its end with its output on standard error; returns its exit status.
    private static func runTool(_ name: String, _ arguments: [String]) -> Int32 {
        let executable = ["/usr/bin/", "/bin/"].map { $0 + name }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let executable else { return -1 }
        let environment = ["DEBIAN_FRONTEND": "noninteractive"]
        guard
            let pid = try? Subprocess.spawn(
                executable, arguments, output: STDERR_FILENO, extraEnvironment: environment)
        else { return -1 }
        return Subprocess.wait(pid)
    }

    // MARK: Cleanup, also at exit and on signals

    /// The running master's process id, 0 when none: read by the exit and signal handlers.
    private static let masterPID = Atomic<Int32>(0)
    private static let cleanupState = Mutex(CleanupState())

    private struct CleanupState {
        var directory: String?
        var isRegistered = false
    }

    /// Installs, once, an exit handler and SIGINT/SIGTERM/SIGHUP handlers that stop nginx.
    private static func registerCleanup() {
        let first = cleanupState.withLock { s -> Bool in
            defer { s.isRegistered = true }
            return !s.isRegistered
        }
        guard first else { return }
        atexit { LocalNginx.stopMaster() }
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber) { received in
                // Only async-signal-safe calls here: kill, signal, raise.
                let pid = LocalNginx.masterPID.exchange(0, ordering: .sequentiallyConsistent)
                if pid > 0 { kill(pid, SIGTERM) }
                signal(received, SIG_DFL)
                raise(received)
            }
        }
    }

    /// Stops the master if one runs and waits for it (bounded), then deletes the directory.
    private static func stopMaster() {
        let pid = masterPID.exchange(0, ordering: .sequentiallyConsistent)
        if pid > 0 {
            // Graceful first (nginx -s quit), then fast, then forced; about three seconds in all.
            let steps: [(Int32, Int)] = [(SIGQUIT, 20), (SIGTERM, 10), (SIGKILL, 10)]
            stopping: for (signalNumber, waits) in steps {
                kill(pid, signalNumber)
                for _ in 0..<waits {
                    if Subprocess.poll(pid) != nil { break stopping }
                    usleep(100_000)
                }
            }
        }
        removeDirectory()
    }

    private static func removeDirectory() {
        guard
            let directory = cleanupState.withLock({ s -> String? in
                defer { s.directory = nil }
                return s.directory
            })
        else { return }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
