import Foundation
import Sluice
import SluiceTesting

/// Step: HTTPS against a local MockServer whose certificate comes from a certificate authority made
/// here with the `openssl` tool: trust that authority, pin the server's key, see a wrong pin
/// refused before anything is sent, and present a client certificate to a server that asks for one.
enum TLSTour {
    static func run() async throws {
        Tour.step("TLS: a private certificate authority, pinning and mutual TLS")
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            print("  skipped: the openssl tool is not installed (make deps installs it)")
            return
        }
        let authority = try LocalAuthority()
        let server = try await MockServer.start(
            tls: try MockServerTLS(certificateChain: authority.serverCertificate, privateKey: authority.serverKey))

        // Trust the company CA beside the system's store, for every request of this client.
        var configuration = Client.Configuration()
        configuration.requestOptions.tls.trustRoots = .systemAnd(pem: authority.certificate)
        let client = try Client(baseURL: server.baseURL.absoluteString, configuration: configuration)
        let response = try await client.get("echo").validate().value
        let metrics = response.metrics
        print(
            "  \(response.status) over \(metrics?.tlsVersion ?? "?") with \(metrics?.tlsCipher ?? "?"),"
                + " ALPN \(metrics?.alpnProtocol ?? "none")")

        // Pin the server's public key: the right pin passes, a wrong one fails in the handshake.
        var pinned = try client.makeRequest(.get, "echo")
        pinned.options.tls.publicKeyPins = [try PublicKeyPin(authority.serverKeyPin)]
        print("  pinned to its key: \(try await client.send(pinned).value.status)")
        pinned.options.tls.publicKeyPins = [try PublicKeyPin(sha256: Data(repeating: 7, count: 32))]
        do {
            _ = try await client.send(pinned).value
        } catch {
            print("  a wrong pin: \(error.code), \(error.tlsFailure.map { "\($0)" } ?? "")")
        }

        // A server that requires a client certificate from the same authority.
        var mutual = try MockServerTLS(certificateChain: authority.serverCertificate, privateKey: authority.serverKey)
        mutual.clientCertificates = .required(trustRoots: authority.certificate)
        let strict = try await MockServer.start(tls: mutual)
        var request = try client.makeRequest(.get, strict.url(for: .echo).absoluteString)
        request.options.tls.clientIdentity = ClientIdentity(
            certificate: authority.clientCertificate, privateKey: authority.clientKey)
        print("  with a client certificate: \(try await client.send(request).value.status)")
        try await strict.shutdown()
        try await server.shutdown()
    }
}

/// A certificate authority made with `openssl` in a temporary directory: a server certificate for
/// 127.0.0.1 and a client certificate, both issued by it.
private struct LocalAuthority {
    let certificate: Data
    let serverCertificate: Data
    let serverKey: Data
    let serverKeyPin: String
    let clientCertificate: Data
    let clientKey: Data

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-tour-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.path
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try Self.openssl(
            ["req", "-x509"] + key + [
                "-keyout", "\(path)/ca.key", "-out", "\(path)/ca.pem", "-days", "1", "-subj", "/CN=Tour CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
            ])
        for (name, extensions) in [
            ("server", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth"),
            ("client", "subjectAltName=DNS:tour.client\nextendedKeyUsage=clientAuth"),
        ] {
            try Self.openssl(
                ["req"] + key + [
                    "-keyout", "\(path)/\(name).key", "-out", "\(path)/\(name).csr", "-subj", "/CN=\(name)",
                ])
            try Data(extensions.utf8).write(to: directory.appendingPathComponent("\(name).ext"))
            try Self.openssl([
                "x509", "-req", "-in", "\(path)/\(name).csr", "-CA", "\(path)/ca.pem", "-CAkey", "\(path)/ca.key",
                "-CAcreateserial", "-days", "1", "-extfile", "\(path)/\(name).ext", "-out", "\(path)/\(name).pem",
            ])
        }
        try Self.openssl(["x509", "-in", "\(path)/server.pem", "-pubkey", "-noout", "-out", "\(path)/server.pub"])
        try Self.openssl([
            "pkey", "-pubin", "-in", "\(path)/server.pub", "-outform", "der", "-out", "\(path)/server.spki",
        ])
        try Self.openssl(["dgst", "-sha256", "-binary", "-out", "\(path)/server.pin", "\(path)/server.spki"])
        func read(_ file: String) throws -> Data { try Data(contentsOf: directory.appendingPathComponent(file)) }
        certificate = try read("ca.pem")
        serverCertificate = try read("server.pem")
        serverKey = try read("server.key")
        serverKeyPin = "sha256//" + (try read("server.pin")).base64EncodedString()
        clientCertificate = try read("client.pem")
        clientKey = try read("client.key")
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
            throw SluiceError(.invalidOption, "openssl \(arguments.first ?? "") failed")
        }
    }
}
