import Foundation
import Sluice
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real nginx serving HTTPS, with HTTP/2 offered by ALPN, on 127.0.0.1 and a free port, for the
/// tests that need a TLS server (MockServer speaks plain HTTP/1.1). Its self-signed certificate,
/// made by the `openssl` tool for 127.0.0.1, is in `certificateFile`.
///
/// `/protocol` answers with the protocol nginx saw and the serial number of the connection it came
/// on (`$server_protocol $connection`), which is how a test sees multiplexing from the server's side.
/// Given an upstream port, `/upstream/…` is passed on over plain HTTP to that port on 127.0.0.1
/// (`/upstream/x` as `/x`), unbuffered: a test's own server then answers over TLS and HTTP/2.
///
/// `make deps` installs nginx and openssl; `isAvailable` is false without them.
final class TLSNginx: Sendable {
    /// The port nginx listens on, on 127.0.0.1.
    let port: Int
    /// The server's certificate (PEM).
    let certificateFile: URL
    private let directory: URL
    private let process: ChildProcess

    /// The nginx executable, if one is installed.
    static let executable = ["/usr/sbin/nginx", "/usr/local/sbin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether nginx and openssl are installed.
    static var isAvailable: Bool {
        executable != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")
    }

    /// Request options that trust this server's certificate, and no other.
    func trustingOptions(_ version: RequestOptions.HTTPVersionPreference = .automatic) -> RequestOptions {
        var options = RequestOptions()
        // swift-format-ignore: NeverUseForceTry
        options.tls.trustRoots = .only(pem: try! Data(contentsOf: certificateFile))
        options.httpVersion = version
        return options
    }

    /// The URL of `path` on this server.
    func url(_ path: String) -> URL { URL(string: "https://127.0.0.1:\(port)\(path)")! }

    /// Makes a certificate and a configuration in a new temporary directory, starts nginx on them
    /// and returns once it accepts connections. `upstreamPort`: see `/upstream/` above. Given an
    /// `identity` (a chain and its key, PEM), nginx serves it instead, and staples `ocspResponse`
    /// (DER) to its handshakes when given.
    /// (On a thread of its own: the child processes and the polling would otherwise hold a thread
    /// of the cooperative pool that every other test's awaits need.)
    static func start(
        upstreamPort: Int? = nil, identity: (chain: Data, key: Data)? = nil, ocspResponse: Data? = nil
    ) async throws -> TLSNginx {
        let identity = identity.map { IdentityFiles(chain: $0.chain, key: $0.key) }
        return try await onOwnThread {
            try startBlocking(upstreamPort: upstreamPort, identity: identity, ocspResponse: ocspResponse)
        }
    }

    /// A chain and its key, PEM.
    private struct IdentityFiles: Sendable {
        let chain: Data
        let key: Data
    }

    private static func startBlocking(
        upstreamPort: Int?, identity: IdentityFiles?, ocspResponse: Data?
    ) throws -> TLSNginx {
        guard let executable else { throw Failure("nginx is not installed (make deps installs it)") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-tls-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.path
        if let identity {
            try identity.chain.write(to: directory.appendingPathComponent("cert.pem"))
            try identity.key.write(to: directory.appendingPathComponent("key.pem"))
        } else {
            try run(
                "/usr/bin/openssl",
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", "\(path)/key.pem", "-out", "\(path)/cert.pem", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1",
                ])
        }
        var stapling = ""
        if let ocspResponse {
            try ocspResponse.write(to: directory.appendingPathComponent("ocsp.der"))
            stapling = "ssl_stapling on;\n                    ssl_stapling_file \(path)/ocsp.der;"
        }
        let port = try freePort()
        let upstream =
            upstreamPort.map { upstreamPort in
                """
                location /upstream/ {
                    proxy_pass http://127.0.0.1:\(upstreamPort)/;
                    proxy_http_version 1.1;
                    proxy_buffering off;
                    proxy_read_timeout 60s;
                }
                """
            } ?? ""
        // One process, no workers: nothing to drop privileges to, and one signal stops it. Temporary
        // paths point into the directory, so nginx writes nothing outside it.
        let configuration = """
            daemon off;
            master_process off;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log;
            events { worker_connections 256; }
            http {
                access_log off;
                client_body_temp_path \(path)/body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                server {
                    listen 127.0.0.1:\(port) ssl http2;
                    ssl_certificate \(path)/cert.pem;
                    ssl_certificate_key \(path)/key.pem;
                    \(stapling)
                    location = /protocol {
                        default_type text/plain;
                        return 200 "$server_protocol $connection";
                    }
                    # Answers "METHOD body" once the whole body is read: the mirror makes nginx read
                    # it into one buffer before the content phase, where the static module finds no
                    # file (404, or 405 for methods it does not serve) and hands over to @body.
                    location = /body {
                        client_body_buffer_size 1m;
                        client_body_in_single_buffer on;
                        mirror /discarded;
                        mirror_request_body on;
                        log_not_found off;
                        error_page 404 405 = @body;
                    }
                    location @body {
                        default_type application/octet-stream;
                        return 200 "$request_method $request_body";
                    }
                    location = /discarded {
                        internal;
                        return 204;
                    }
                    \(upstream)
                }
            }
            """
        try Data(configuration.utf8).write(to: directory.appendingPathComponent("nginx.conf"))
        let process = try ChildProcess(executable, ["-p", path, "-c", "\(path)/nginx.conf", "-e", "\(path)/error.log"])
        let server = TLSNginx(port: port, directory: directory, process: process)
        do {
            try server.waitUntilAccepting()
        } catch {
            server.stop()
            throw error
        }
        return server
    }

    private init(port: Int, directory: URL, process: ChildProcess) {
        self.port = port
        self.directory = directory
        self.process = process
        certificateFile = directory.appendingPathComponent("cert.pem")
    }

    /// Stops nginx and deletes its directory.
    func stop() {
        // SIGKILL, at once: it has no workers and nothing to save.
        process.send(SIGKILL)
        process.wait()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Polls the port until nginx accepts a connection; fails after 10 s or if nginx exits.
    private func waitUntilAccepting() throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            guard process.isRunning else {
                let log =
                    (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                throw Failure("nginx exited at start: \(log)")
            }
            if Self.accepts(port: port) { return }
            usleep(20_000)
        }
        throw Failure("nginx did not accept connections on 127.0.0.1:\(port) within 10 s")
    }

    private static func accepts(port: Int) -> Bool {
        guard let descriptor = LoopbackSocket.connect(to: port) else { return false }
        close(descriptor)
        return true
    }

    /// A port that was free a moment ago: the kernel's choice for a socket bound to port 0.
    private static func freePort() throws -> Int {
        let (descriptor, port) = try LoopbackSocket.listen(backlog: 1)
        close(descriptor)
        return port
    }

    /// Runs a tool to its end; throws if it fails.
    private static func run(_ executable: String, _ arguments: [String]) throws {
        let termination = try ChildProcess.run(executable, arguments).termination
        guard termination == .exit(0) else {
            throw Failure("\(executable) \(arguments.joined(separator: " ")) ended with \(termination)")
        }
    }

    /// Why the server could not be started.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
