import Foundation
import SluiceTesting

/// Certificates the tests make for themselves with the `openssl` tool, once per test process: two
/// certificate authorities and certificates for every trust case (good, expired, not yet valid,
/// for another host, self-signed, from the other authority, client certificates).
///
/// `TestPKI.shared.serverTLS` starts a `MockServer` on the good server certificate. The files live
/// in a temporary directory that the process leaves behind (a few kilobytes).
struct TestPKI: Sendable {
    /// A certificate (PEM) and its private key (PEM).
    struct Identity: Sendable {
        let certificate: Data
        let key: Data
        /// The certificate's public-key pin, `sha256//BASE64` of its SubjectPublicKeyInfo.
        let publicKeyPin: String
        /// The certificate's pin, `sha256//BASE64` of its DER.
        let certificatePin: String

        /// The certificate's DER.
        var der: Data { TestPKI.der(fromPEM: certificate) }

        /// A MockServer TLS configuration serving this identity.
        var serverTLS: MockServerTLS {
            get throws { try MockServerTLS(certificateChain: certificate, privateKey: key) }
        }
    }

    /// The authority the tests trust (PEM).
    let authorityCertificate: Data
    /// Another authority, trusted by nobody (PEM).
    let otherAuthorityCertificate: Data
    /// For IP 127.0.0.1 and DNS localhost, issued by the authority.
    let server: Identity
    /// The same names and authority, another key (a public-key pin of `server` does not match it).
    let serverWithOtherKey: Identity
    /// Expired yesterday.
    let expired: Identity
    /// Valid from 2099.
    let notYetValid: Identity
    /// For `other.example` only.
    let otherHost: Identity
    /// Self-signed, for 127.0.0.1.
    let selfSigned: Identity
    /// For 127.0.0.1, issued by the other authority.
    let fromOtherAuthority: Identity
    /// A client certificate issued by the authority.
    let client: Identity
    /// A client certificate issued by the other authority.
    let clientFromOtherAuthority: Identity
    /// `client`'s key, encrypted with `encryptedKeyPassphrase` (PEM).
    let encryptedClientKey: Data
    /// A good OCSP response for `server`, signed by the authority (DER), for stapling.
    let serverOCSPResponse: Data
    /// The passphrase of `encryptedClientKey`.
    let encryptedKeyPassphrase = "correct horse"
    /// The directory holding the files.
    let directory: URL

    /// The certificates, made on first use; throws the reason they could not be made.
    static var shared: TestPKI {
        get async throws { try await made.value }
    }

    /// Made on a thread of its own: the dozens of `openssl` runs would otherwise hold threads of
    /// the cooperative pool, and every test that awaits anything, for as long as they take.
    private static let made = Task { try await onOwnThread { try TestPKI() } }

    /// A MockServer TLS configuration that serves the good server certificate.
    var serverTLS: MockServerTLS {
        get throws { try server.serverTLS }
    }

    /// The good server certificate, as the authority's own files call it.
    var serverCertificate: Data { server.certificate }

    private init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-pki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let maker = Maker(directory: directory)
        authorityCertificate = try maker.authority("ca", name: "Sluice Test CA")
        otherAuthorityCertificate = try maker.authority("other-ca", name: "Sluice Other CA")
        let serverNames = "IP:127.0.0.1, DNS:localhost"
        server = try maker.issue("server", by: "ca", names: serverNames)
        serverWithOtherKey = try maker.issue("server-other-key", by: "ca", names: serverNames)
        expired = try maker.issue(
            "expired", by: "ca", names: serverNames, from: "20200101000000Z", to: "20200102000000Z")
        notYetValid = try maker.issue(
            "not-yet-valid", by: "ca", names: serverNames, from: "20991231000000Z", to: "21000101000000Z")
        otherHost = try maker.issue("other-host", by: "ca", names: "DNS:other.example")
        selfSigned = try maker.selfSigned("self-signed", names: serverNames)
        fromOtherAuthority = try maker.issue("from-other-ca", by: "other-ca", names: serverNames)
        client = try maker.issue("client", by: "ca", names: "DNS:client.example", usage: "clientAuth")
        clientFromOtherAuthority = try maker.issue(
            "client-other-ca", by: "other-ca", names: "DNS:client.example", usage: "clientAuth")
        encryptedClientKey = try maker.encrypt("client", passphrase: encryptedKeyPassphrase)
        serverOCSPResponse = try maker.ocspResponse(for: "server", by: "ca")
    }

    /// The DER of the first certificate in `pem`.
    static func der(fromPEM pem: Data) -> Data {
        let text = String(decoding: pem, as: UTF8.self)
        let body = text.components(separatedBy: "-----BEGIN CERTIFICATE-----")[1]
            .components(separatedBy: "-----END CERTIFICATE-----")[0]
        return Data(base64Encoded: body.filter { !$0.isWhitespace })!
    }

    /// SHA-256, by the `openssl` tool (the tests link no hash of their own).
    static func sha256(_ data: Data) -> Data {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-hash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: input) }
        try? data.write(to: input)
        let digest = try? ChildProcess.run("/usr/bin/openssl", ["dgst", "-sha256", "-binary", input.path])
        return Data(digest?.standardOutput ?? [])
    }

    /// Runs `openssl` in one directory.
    private struct Maker {
        let directory: URL
        private var path: String { directory.path }
        private let ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

        init(directory: URL) { self.directory = directory }

        /// A self-signed authority; returns its certificate.
        func authority(_ file: String, name: String) throws -> Data {
            try openssl(
                ["req", "-x509"] + ecKey + [
                    "-keyout", "\(path)/\(file).key", "-out", "\(path)/\(file).pem", "-days", "2", "-subj",
                    "/CN=\(name)",
                    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                ])
            try Data("".utf8).write(to: directory.appendingPathComponent("\(file).index"))
            try Data("01\n".utf8).write(to: directory.appendingPathComponent("\(file).serial"))
            return try read("\(file).pem")
        }

        /// A certificate for `names` issued by the authority `issuer`, valid for two days from now
        /// or between `from` and `to` (`YYYYMMDDHHMMSSZ`).
        func issue(
            _ file: String, by issuer: String, names: String, usage: String = "serverAuth", from: String? = nil,
            to: String? = nil
        ) throws -> Identity {
            try openssl(
                ["req"] + ecKey + [
                    "-keyout", "\(path)/\(file).key", "-out", "\(path)/\(file).csr", "-subj", "/CN=\(file)",
                ])
            let extensions = """
                basicConstraints = critical, CA:FALSE
                keyUsage = critical, digitalSignature
                extendedKeyUsage = \(usage)
                subjectAltName = \(names)
                """
            try Data(extensions.utf8).write(to: directory.appendingPathComponent("\(file).ext"))
            let configuration = """
                [ ca ]
                default_ca = issuer
                [ issuer ]
                database = \(path)/\(issuer).index
                serial = \(path)/\(issuer).serial
                new_certs_dir = \(path)
                default_md = sha256
                default_days = 2
                policy = anything
                unique_subject = no
                [ anything ]
                commonName = supplied
                """
            try Data(configuration.utf8).write(to: directory.appendingPathComponent("\(file).cnf"))
            var arguments = [
                "ca", "-batch", "-notext", "-config", "\(path)/\(file).cnf", "-cert", "\(path)/\(issuer).pem",
                "-keyfile", "\(path)/\(issuer).key", "-extfile", "\(path)/\(file).ext", "-in", "\(path)/\(file).csr",
                "-out", "\(path)/\(file).pem",
            ]
            if let from, let to { arguments += ["-startdate", from, "-enddate", to] }
            try openssl(arguments)
            return try identity(file)
        }

        /// A good OCSP response for `file`.pem from its issuer, which signs it itself.
        func ocspResponse(for file: String, by issuer: String) throws -> Data {
            try openssl([
                "ocsp", "-issuer", "\(path)/\(issuer).pem", "-cert", "\(path)/\(file).pem", "-no_nonce", "-reqout",
                "\(path)/\(file).ocsp-request",
            ])
            try openssl([
                "ocsp", "-index", "\(path)/\(issuer).index", "-rsigner", "\(path)/\(issuer).pem", "-rkey",
                "\(path)/\(issuer).key", "-CA", "\(path)/\(issuer).pem", "-reqin", "\(path)/\(file).ocsp-request",
                "-respout", "\(path)/\(file).ocsp", "-ndays", "2",
            ])
            return try read("\(file).ocsp")
        }

        /// `file`.key encrypted with AES-256 under `passphrase`.
        func encrypt(_ file: String, passphrase: String) throws -> Data {
            try openssl([
                "pkey", "-in", "\(path)/\(file).key", "-aes256", "-passout", "pass:\(passphrase)", "-out",
                "\(path)/\(file).encrypted.key",
            ])
            return try read("\(file).encrypted.key")
        }

        /// A self-signed certificate that is not an authority.
        func selfSigned(_ file: String, names: String) throws -> Identity {
            try openssl(
                ["req", "-x509"] + ecKey + [
                    "-keyout", "\(path)/\(file).key", "-out", "\(path)/\(file).pem", "-days", "2", "-subj",
                    "/CN=\(file)",
                    "-addext", "basicConstraints=critical,CA:FALSE", "-addext", "subjectAltName=\(names)",
                ])
            return try identity(file)
        }

        /// The identity in `file`.pem and `file`.key, with its pins.
        private func identity(_ file: String) throws -> Identity {
            let certificate = try read("\(file).pem")
            try openssl(["x509", "-in", "\(path)/\(file).pem", "-pubkey", "-noout", "-out", "\(path)/\(file).pub"])
            try openssl([
                "pkey", "-pubin", "-in", "\(path)/\(file).pub", "-outform", "der", "-out", "\(path)/\(file).spki",
            ])
            let spki = try read("\(file).spki")
            return Identity(
                certificate: certificate, key: try read("\(file).key"),
                publicKeyPin: "sha256//" + TestPKI.sha256(spki).base64EncodedString(),
                certificatePin: "sha256//" + TestPKI.sha256(TestPKI.der(fromPEM: certificate)).base64EncodedString())
        }

        private func read(_ file: String) throws -> Data {
            try Data(contentsOf: directory.appendingPathComponent(file))
        }

        private func openssl(_ arguments: [String]) throws {
            let termination = try ChildProcess.run("/usr/bin/openssl", arguments).termination
            guard termination == .exit(0) else {
                throw TLSNginx.Failure("openssl \(arguments.joined(separator: " ")) ended with \(termination)")
            }
        }
    }
}
