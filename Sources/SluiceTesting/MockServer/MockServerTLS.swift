import Foundation
internal import NIOSSL

/// How a `MockServer` speaks TLS: its certificate and key, the TLS versions it accepts and whether
/// it asks for a client certificate. Start a server with it to serve `https://` URLs.
///
/// ```swift
/// let tls = try MockServerTLS(certificateChain: leafAndIntermediatesPEM, privateKey: keyPEM)
/// let server = try await MockServer.start(tls: tls)   // server.baseURL is https://127.0.0.1:PORT/
/// ```
///
/// The certificates are the test's own (made with `openssl`, say): the server checks nothing about
/// them beyond that the key matches.
public struct MockServerTLS: Sendable {
    /// A TLS protocol version.
    public enum Version: Sendable, Equatable, Comparable {
        /// TLS 1.0.
        case tls10
        /// TLS 1.1.
        case tls11
        /// TLS 1.2.
        case tls12
        /// TLS 1.3.
        case tls13
    }

    /// Whether the server asks the client for a certificate.
    public enum ClientCertificates: Sendable {
        /// The server asks for none.
        case notRequested
        /// The handshake fails unless the client presents a certificate issued by one of these CA
        /// certificates (PEM).
        case required(trustRoots: Data)
    }

    /// The server's certificate chain in PEM, leaf first.
    public var certificateChain: Data
    /// The server's private key in PEM (unencrypted).
    public var privateKey: Data
    /// The oldest TLS version the server accepts.
    public var minimumVersion: Version = .tls12
    /// The newest TLS version the server accepts; nil for the newest it knows.
    public var maximumVersion: Version? = nil
    /// Whether a client certificate is required.
    public var clientCertificates: ClientCertificates = .notRequested

    /// Checks that the chain and key are readable PEM; throws what NIOSSL reports otherwise.
    public init(certificateChain: Data, privateKey: Data) throws {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        _ = try makeContext()
    }

    /// The NIOSSL context a server's connections share.
    func makeContext() throws -> NIOSSLContext {
        let certificates = try NIOSSLCertificate.fromPEMBytes(Array(certificateChain))
        let key = try NIOSSLPrivateKey(bytes: Array(privateKey), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = minimumVersion.nio
        configuration.maximumTLSVersion = maximumVersion?.nio
        // MockServer speaks HTTP/1.1 only: offering it by ALPN keeps libcurl from asking for h2.
        configuration.applicationProtocols = ["http/1.1"]
        switch clientCertificates {
        case .notRequested:
            configuration.certificateVerification = .none
        case .required(let trustRoots):
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(trustRoots)))
        }
        return try NIOSSLContext(configuration: configuration)
    }
}

extension MockServerTLS.Version {
    fileprivate var nio: TLSVersion {
        switch self {
        case .tls10: return .tlsv1
        case .tls11: return .tlsv11
        case .tls12: return .tlsv12
        case .tls13: return .tlsv13
        }
    }
}
