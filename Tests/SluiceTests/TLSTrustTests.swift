import Foundation
import Logging
import SluiceTesting
import Synchronization
import Testing

@testable import Sluice

/// TLS trust against MockServer over TLS, on certificates the tests make (`TestPKI`): trust roots
/// from data and files, certificates refused with their reasons, public-key and certificate pins,
/// an evaluator, mutual TLS, TLS versions, per-host settings, and no setting carried over to the
/// next request on the same transport.
@Suite("TLS trust")
struct TLSTrustTests {
    /// Options that trust the tests' authority alone.
    private static func trustingTestAuthority() async throws -> RequestOptions {
        var options = RequestOptions()
        options.tls.trustRoots = .only(pem: try await TestPKI.shared.authorityCertificate)
        return options
    }

    /// Runs `body` with a MockServer serving `identity` (the good server certificate by default).
    @discardableResult
    private static func withTLSServer<T>(
        _ identity: TestPKI.Identity? = nil, configure: (inout MockServerTLS) -> Void = { _ in },
        _ body: (MockServer, CurlTransport) async throws -> T
    ) async throws -> T {
        let pki = try await TestPKI.shared
        var tls = try (identity ?? pki.server).serverTLS
        configure(&tls)
        let server = try await MockServer.start(tls: tls)
        let transport = CurlTransport()
        return try await shuttingDown(server) { try await body(server, transport) }
    }

    /// Expects a TLS failure for `reason`; returns the error.
    @discardableResult
    private static func expectTLSFailure(
        _ reason: TLSFailureReason, sourceLocation: SourceLocation = #_sourceLocation,
        _ operation: () async throws -> Response
    ) async -> SluiceError? {
        let error = await expectFailure(.tlsFailure, sourceLocation: sourceLocation, operation)
        #expect(error?.tlsFailure == reason, "\(String(describing: error))", sourceLocation: sourceLocation)
        return error
    }

    // MARK: Trust roots

    @Test func aPrivateAuthorityFromDataIsTrusted() async throws {
        try await Self.withTLSServer { server, transport in
            let response = try await transport.send(
                server.url(for: .echo), options: try await Self.trustingTestAuthority())
            #expect(response.status == 200)
        }
    }

    /// Added to the system's store, from a file, as a service trusting its company's CA does.
    @Test func aPrivateAuthorityFromAFileIsTrustedBesideTheSystemStore() async throws {
        let file = try await TestPKI.shared.directory.appendingPathComponent("ca.pem")
        try await Self.withTLSServer { server, transport in
            var options = RequestOptions()
            options.tls.trustRoots = .systemAnd(pem: try Data(contentsOf: file))
            let response = try await transport.send(server.url(for: .echo), options: options)
            #expect(response.status == 200)
        }
    }

    @Test func theSystemStoreAloneDoesNotTrustThePrivateAuthority() async throws {
        try await Self.withTLSServer { server, transport in
            let error = await Self.expectTLSFailure(.untrustedIssuer) {
                try await transport.send(server.url(for: .echo))
            }
            #expect(error?.message.contains("issuer") == true, "\(String(describing: error))")
            #expect(server.recordedRequests.isEmpty)
        }
    }

    /// Each certificate that must be refused, with its reason; nothing is sent.
    @Test(arguments: [
        ("expired", TLSFailureReason.expired), ("not yet valid", .notYetValid), ("other host", .hostNameMismatch),
        ("self-signed", .untrustedIssuer), ("other authority", .untrustedIssuer),
    ])
    func aBadCertificateIsRefusedWithItsReason(name: String, reason: TLSFailureReason) async throws {
        let pki = try await TestPKI.shared
        let identities = [
            "expired": pki.expired, "not yet valid": pki.notYetValid, "other host": pki.otherHost,
            "self-signed": pki.selfSigned, "other authority": pki.fromOtherAuthority,
        ]
        try await Self.withTLSServer(identities[name]!) { server, transport in
            await Self.expectTLSFailure(reason) {
                try await transport.send(server.url(for: .echo), options: try await Self.trustingTestAuthority())
            }
            #expect(server.recordedRequests.isEmpty)
        }
    }

    // MARK: Pins

    @Test func aMatchingPublicKeyPinIsAccepted() async throws {
        let pki = try await TestPKI.shared
        try await Self.withTLSServer { server, transport in
            var options = try await Self.trustingTestAuthority()
            options.tls.publicKeyPins = [try PublicKeyPin(pki.server.publicKeyPin)]
            #expect(try await transport.send(server.url(for: .echo), options: options).status == 200)
            // Several pins: one of them matching is enough.
            options.tls.publicKeyPins = [
                try PublicKeyPin(pki.serverWithOtherKey.publicKeyPin), try PublicKeyPin(pki.server.publicKeyPin),
            ]
            #expect(try await transport.send(server.url(for: .echo), options: options).status == 200)
        }
    }

    /// Same authority, same names, another key: the pin fails in the handshake, nothing is sent.
    @Test func aPublicKeyPinOfAnotherKeyIsRefused() async throws {
        let pki = try await TestPKI.shared
        try await Self.withTLSServer(pki.serverWithOtherKey) { server, transport in
            var options = try await Self.trustingTestAuthority()
            options.tls.publicKeyPins = [try PublicKeyPin(pki.server.publicKeyPin)]
            await Self.expectTLSFailure(.pinMismatch) {
                try await transport.send(server.url(for: .echo), options: options)
            }
            #expect(server.recordedRequests.isEmpty)
        }
    }

    /// A certificate pin matches the leaf, or a certificate of the verified chain (the root here).
    @Test func certificatePinsMatchTheLeafOrTheChain() async throws {
        let pki = try await TestPKI.shared
        let authorityPin = try CertificatePin(sha256: Self.sha256(TestPKI.der(fromPEM: pki.authorityCertificate)))
        try await Self.withTLSServer { server, transport in
            var options = try await Self.trustingTestAuthority()
            options.tls.certificatePins = [try CertificatePin(pki.server.certificatePin)]
            #expect(try await transport.send(server.url(for: .echo), options: options).status == 200)
            options.tls.certificatePins = [authorityPin]
            #expect(try await transport.send(server.url(for: .echo), options: options).status == 200)
            options.tls.certificatePins = [try CertificatePin(pki.serverWithOtherKey.certificatePin)]
            let error = await Self.expectTLSFailure(.pinMismatch) {
                try await transport.send(server.url(for: .echo), options: options)
            }
            #expect(error?.message.contains("nothing was sent") == true, "\(String(describing: error))")
            #expect(server.recordedRequests.count == 2)
        }
    }

    private static func sha256(_ data: Data) -> Data { TestPKI.sha256(data) }

    // MARK: Evaluator

    @Test func anEvaluatorSeesTheChainAndDecides() async throws {
        let pki = try await TestPKI.shared
        let seen = SeenChains()
        try await Self.withTLSServer { server, transport in
            var options = try await Self.trustingTestAuthority()
            options.tls.evaluator = ServerTrustEvaluator { chain in
                seen.add(chain)
                return true
            }
            #expect(try await transport.send(server.url(for: .echo), options: options).status == 200)
            let chain = try #require(seen.chains.first)
            #expect(chain.host == "127.0.0.1")
            #expect(chain.certificates.first == pki.server.der)
            #expect(chain.verifiedChain.last == TestPKI.der(fromPEM: pki.authorityCertificate))

            options.tls.evaluator = ServerTrustEvaluator { _ in false }
            await Self.expectTLSFailure(.evaluatorRefused) {
                try await transport.send(server.url(for: .echo), options: options)
            }
            #expect(server.recordedRequests.count == 1)
        }
    }

    // MARK: Mutual TLS

    @Test func aServerThatRequiresAClientCertificate() async throws {
        let pki = try await TestPKI.shared
        try await Self.withTLSServer(configure: {
            $0.clientCertificates = .required(trustRoots: pki.authorityCertificate)
        }) {
            server, transport in
            var options = try await Self.trustingTestAuthority()
            await Self.expectTLSFailure(.clientCertificateRequired) {
                try await transport.send(server.url(for: .echo), options: options)
            }
            options.tls.clientIdentity = ClientIdentity(
                certificate: pki.clientFromOtherAuthority.certificate, privateKey: pki.clientFromOtherAuthority.key)
            await Self.expectTLSFailure(.clientCertificateRefused) {
                try await transport.send(server.url(for: .echo), options: options)
            }
            options.tls.clientIdentity = ClientIdentity(certificate: pki.client.certificate, privateKey: pki.client.key)
            #expect(try await transport.send(server.url(for: .echo), options: options).status == 200)
            #expect(server.recordedRequests.count == 1)
        }
    }

    /// An encrypted key is used with its passphrase, and refused with a wrong one.
    @Test func anEncryptedClientKeyNeedsItsPassphrase() async throws {
        let pki = try await TestPKI.shared
        try await Self.withTLSServer(configure: {
            $0.clientCertificates = .required(trustRoots: pki.authorityCertificate)
        }) {
            server, transport in
            var options = try await Self.trustingTestAuthority()
            options.tls.clientIdentity = ClientIdentity(
                certificate: pki.client.certificate, privateKey: pki.encryptedClientKey,
                passphrase: pki.encryptedKeyPassphrase)
            #expect(try await transport.send(server.url(for: .echo), options: options).status == 200)
            // On a new transport: libcurl may reuse the connection made with this same certificate
            // and key, whatever passphrase unlocked the key then.
            options.tls.clientIdentity?.passphrase = "wrong"
            await Self.expectTLSFailure(.clientCertificateUnusable) {
                try await CurlTransport().send(server.url(for: .echo), options: options)
            }
        }
    }

    @Test func anUnusableClientKeyIsReportedAsSuch() async throws {
        let pki = try await TestPKI.shared
        try await Self.withTLSServer(configure: {
            $0.clientCertificates = .required(trustRoots: pki.authorityCertificate)
        }) {
            server, transport in
            var options = try await Self.trustingTestAuthority()
            // The key of another certificate.
            options.tls.clientIdentity = ClientIdentity(certificate: pki.client.certificate, privateKey: pki.server.key)
            await Self.expectTLSFailure(.clientCertificateUnusable) {
                try await transport.send(server.url(for: .echo), options: options)
            }
        }
    }

    // MARK: Versions

    /// A server that speaks nothing newer than TLS 1.1 is refused; so is a TLS 1.2 one when 1.3 is
    /// the minimum.
    @Test func versionsBelowTheMinimumAreRefused() async throws {
        try await Self.withTLSServer(configure: {
            $0.minimumVersion = .tls10
            $0.maximumVersion = .tls11
        }) { server, transport in
            await Self.expectTLSFailure(.protocolVersion) {
                try await transport.send(server.url(for: .echo), options: try await Self.trustingTestAuthority())
            }
        }
        try await Self.withTLSServer(configure: { $0.maximumVersion = .tls12 }) { server, transport in
            var options = try await Self.trustingTestAuthority()
            #expect(try await transport.send(server.url(for: .echo), options: options).status == 200)
            options.tls.minimumVersion = .tls13
            await Self.expectTLSFailure(.protocolVersion) {
                try await transport.send(server.url(for: .echo), options: options)
            }
        }
    }

    // MARK: OCSP and metrics

    /// MockServer staples no OCSP response: a request that requires one is refused, nothing sent.
    @Test func requiredStaplingWithoutAResponseIsRefused() async throws {
        try await Self.withTLSServer { server, transport in
            var options = try await Self.trustingTestAuthority()
            options.tls.requiresOCSPStapling = true
            await Self.expectTLSFailure(.certificateStatus) {
                try await transport.send(server.url(for: .echo), options: options)
            }
            #expect(server.recordedRequests.isEmpty)
        }
    }

    /// nginx staples a good response from the tests' authority: the request that requires one passes.
    @Test(.enabled(if: TLSNginx.isAvailable, "needs nginx and openssl (make deps)"))
    func requiredStaplingWithAGoodResponsePasses() async throws {
        let pki = try await TestPKI.shared
        let nginx = try await TLSNginx.start(
            identity: (pki.server.certificate + pki.authorityCertificate, pki.server.key),
            ocspResponse: pki.serverOCSPResponse)
        defer { nginx.stop() }
        var options = try await Self.trustingTestAuthority()
        options.tls.requiresOCSPStapling = true
        let response = try await CurlTransport().send(nginx.url("/protocol"), options: options)
        #expect(response.status == 200)
    }

    /// Metrics name the TLS version, the cipher and the ALPN protocol; plain HTTP has none.
    @Test func metricsShowWhatTLSNegotiated() async throws {
        try await Self.withTLSServer(configure: { $0.minimumVersion = .tls13 }) { server, transport in
            let metrics = try #require(
                try await transport.send(server.url(for: .echo), options: try await Self.trustingTestAuthority())
                    .metrics)
            #expect(metrics.tlsVersion == "TLSv1.3")
            #expect(metrics.tlsCipher?.hasPrefix("TLS_") == true, "\(String(describing: metrics.tlsCipher))")
            #expect(metrics.alpnProtocol == "http/1.1")
        }
        try await withServer { server, transport in
            let metrics = try #require(try await transport.send(server.url(for: .echo)).metrics)
            #expect(metrics.tlsVersion == nil && metrics.tlsCipher == nil && metrics.alpnProtocol == nil)
        }
    }

    // MARK: Per host

    @Test func aHostsOwnConfigurationWinsOverTheDefault() async throws {
        let pki = try await TestPKI.shared
        try await Self.withTLSServer { server, transport in
            var options = RequestOptions()
            options.tlsForHosts = ["127.0.0.1": try await Self.trustingTestAuthority().tls]
            #expect(try await transport.send(server.url(for: .echo), options: options).status == 200)
            options.tlsForHosts = ["localhost": try await Self.trustingTestAuthority().tls]
            await Self.expectTLSFailure(.untrustedIssuer) {
                try await transport.send(server.url(for: .echo), options: options)
            }
            _ = pki
        }
    }

    // MARK: Through a client

    /// The client's configuration trusts the authority for all its requests; one request adds a
    /// pin that fails, and the next is the client's own again.
    @Test func aClientsSettingsApplyToItsRequestsAndOneRequestCanAddItsOwn() async throws {
        let pki = try await TestPKI.shared
        try await Self.withTLSServer { server, transport in
            var configuration = Client.Configuration()
            configuration.requestOptions = try await Self.trustingTestAuthority()
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            #expect(try await client.get("echo").validate().value.status == 200)
            var pinned = try client.makeRequest(.get, "echo")
            pinned.options.tls.publicKeyPins = [try PublicKeyPin(pki.serverWithOtherKey.publicKeyPin)]
            do throws(SluiceError) {
                _ = try await client.send(pinned).value
                Issue.record("a request with a pin of another key went through")
            } catch {
                #expect(error.tlsFailure == .pinMismatch, "\(error)")
            }
            #expect(try await client.get("echo").value.status == 200)
            #expect(server.recordedRequests.count == 2)
        }
    }

    // MARK: Nothing carried over

    /// After an authenticated request, a request without a client certificate must not ride on the
    /// authenticated connection; after an unpinned one, a pinned request must not ride on the
    /// unverified one; after one with verification off, verification is on again.
    @Test func noTLSSettingOutlivesItsRequest() async throws {
        let pki = try await TestPKI.shared
        try await Self.withTLSServer(configure: {
            $0.clientCertificates = .required(trustRoots: pki.authorityCertificate)
        }) {
            server, transport in
            var authenticated = try await Self.trustingTestAuthority()
            authenticated.tls.clientIdentity = ClientIdentity(
                certificate: pki.client.certificate, privateKey: pki.client.key)
            #expect(try await transport.send(server.url(for: .echo), options: authenticated).status == 200)
            // A plain-HTTP request in between leaves the TLS options alone; the next https request
            // sets them all again.
            let plain = try await MockServer.start()
            let status = try await transport.send(plain.url(for: .echo)).status
            try await plain.shutdown()
            #expect(status == 200)
            await Self.expectTLSFailure(.clientCertificateRequired) {
                try await transport.send(server.url(for: .echo), options: try await Self.trustingTestAuthority())
            }
        }
        try await Self.withTLSServer { server, transport in
            let plain = try await Self.trustingTestAuthority()
            #expect(try await transport.send(server.url(for: .echo), options: plain).status == 200)
            var pinned = plain
            pinned.tls.publicKeyPins = [try PublicKeyPin(pki.serverWithOtherKey.publicKeyPin)]
            await Self.expectTLSFailure(.pinMismatch) {
                try await transport.send(server.url(for: .echo), options: pinned)
            }
            var certificatePinned = plain
            certificatePinned.tls.certificatePins = [try CertificatePin(pki.serverWithOtherKey.certificatePin)]
            await Self.expectTLSFailure(.pinMismatch) {
                try await transport.send(server.url(for: .echo), options: certificatePinned)
            }
            #expect(try await transport.send(server.url(for: .echo), options: plain).status == 200)
        }
        try await Self.withTLSServer(pki.expired) { server, transport in
            var insecure = try await Self.trustingTestAuthority()
            insecure.tls.insecureSkipsPeerVerification = true
            #expect(try await transport.send(server.url(for: .echo), options: insecure).status == 200)
            await Self.expectTLSFailure(.expired) {
                try await transport.send(server.url(for: .echo), options: try await Self.trustingTestAuthority())
            }
        }
    }
}

/// The chains an evaluator saw.
private final class SeenChains: Sendable {
    private let storage = Mutex<[PeerChain]>([])
    func add(_ chain: PeerChain) { storage.withLock { $0.append(chain) } }
    var chains: [PeerChain] { storage.withLock { $0 } }
}

/// The warning a client logs when a request turns TLS verification off: once, however many such
/// requests follow, and never for requests that verify.
@Suite("Insecure TLS warning")
struct InsecureTLSWarningTests {
    @Test func itIsLoggedOncePerClient() {
        let lines = Lock<[(Logger.Level, String)]>([])
        let warning = InsecureTLSWarning(
            logger: Logger(label: "test") { _ in CapturingLogHandler(lines: lines, logLevel: .trace) })
        var secure = RequestOptions()
        secure.tlsForHosts = ["example.com": TLSConfiguration()]
        warning.note(secure)
        warning.note(RequestOptions())
        #expect(lines.withLock { $0.isEmpty })
        var insecure = RequestOptions()
        insecure.tlsForHosts["internal"] = TLSConfiguration()
        insecure.tlsForHosts["internal"]?.insecureSkipsHostNameVerification = true
        for _ in 0..<3 { warning.note(insecure) }
        insecure = RequestOptions()
        insecure.tls.insecureSkipsPeerVerification = true
        warning.note(insecure)
        let logged = lines.withLock { $0 }
        #expect(logged.count == 1)
        #expect(logged.first?.0 == .warning)
        #expect(logged.first?.1.contains("insecureSkipsPeerVerification") == true)
    }
}
