import Foundation
import SluiceTesting

/// Certificates the tests make for themselves with the `openssl` tool, once per test process: a
/// certificate authority and a server certificate it issued for 127.0.0.1 and localhost.
///
/// `TestPKI.shared.serverTLS` starts a `MockServer` on them. The files live in a temporary
/// directory that the process leaves behind (a few kilobytes).
struct TestPKI: Sendable {
    /// The authority's certificate (PEM).
    let authorityCertificate: Data
    /// The server certificate (PEM), issued by the authority, for IP 127.0.0.1 and DNS localhost.
    let serverCertificate: Data
    /// The server certificate's private key (PEM).
    let serverKey: Data
    /// The directory holding the files.
    let directory: URL

    /// The certificates, made on first use; throws the reason they could not be made.
    static var shared: TestPKI {
        get throws { try made.get() }
    }

    private static let made = Result { try TestPKI() }

    /// A MockServer TLS configuration that serves the server certificate.
    var serverTLS: MockServerTLS {
        get throws { try MockServerTLS(certificateChain: serverCertificate, privateKey: serverKey) }
    }

    private init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-pki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.path
        let ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try Self.openssl(
            ["req", "-x509"] + ecKey + [
                "-keyout", "\(path)/ca.key", "-out", "\(path)/ca.pem", "-days", "2", "-subj", "/CN=Sluice Test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        try Self.openssl(
            ["req"] + ecKey + ["-keyout", "\(path)/server.key", "-out", "\(path)/server.csr", "-subj", "/CN=127.0.0.1"])
        let extensions = """
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = serverAuth
            subjectAltName = IP:127.0.0.1, DNS:localhost
            """
        try Data(extensions.utf8).write(to: directory.appendingPathComponent("server.ext"))
        try Self.openssl([
            "x509", "-req", "-in", "\(path)/server.csr", "-CA", "\(path)/ca.pem", "-CAkey", "\(path)/ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", "\(path)/server.ext", "-out", "\(path)/server.pem",
        ])
        authorityCertificate = try Data(contentsOf: directory.appendingPathComponent("ca.pem"))
        serverCertificate = try Data(contentsOf: directory.appendingPathComponent("server.pem"))
        serverKey = try Data(contentsOf: directory.appendingPathComponent("server.key"))
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TLSNginx.Failure(
                "openssl \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
    }
}
