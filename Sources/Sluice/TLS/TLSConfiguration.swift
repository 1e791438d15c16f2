import FoundationEssentials

/// How a request's TLS connection is made and its server trusted: the roots of trust, the oldest
/// TLS version accepted, pins, a client certificate, OCSP stapling and a custom evaluator.
///
/// Set it for a whole client (`Client.Configuration.requestOptions.tls`), for some hosts
/// (`RequestOptions.tlsForHosts`, as Alamofire's `ServerTrustManager` does) or for one request
/// (`request.options.tls`). Every option applies to its own request only: a pooled connection or
/// handle never carries it into the next.
///
/// ```swift
/// var options = RequestOptions()
/// options.tls.trustRoots = .systemAnd(pem: try Data(contentsOf: URL(fileURLWithPath: "internal-ca.pem")))
/// options.tls.publicKeyPins = [try PublicKeyPin("sha256//r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=")]
/// options.tls.clientIdentity = ClientIdentity(certificate: certificatePEM, privateKey: keyPEM)
/// ```
public struct TLSConfiguration: Sendable, Equatable {
    /// Which certificate authorities the server's chain must lead to.
    public var trustRoots: TrustRoots = .system
    /// The oldest TLS version accepted: TLS 1.2 by default.
    public var minimumVersion: TLSVersion = .tls12
    /// SHA-256 pins of public keys (SubjectPublicKeyInfo): when any is given, the server's key must
    /// match one, checked during the handshake, before any byte of the request is sent.
    public var publicKeyPins: [PublicKeyPin] = []
    /// SHA-256 pins of certificates (their DER): when any is given, the leaf or a certificate of
    /// the verified chain must match one; checked before any byte of the request is sent.
    public var certificatePins: [CertificatePin] = []
    /// A certificate and key to present when the server asks for one (mutual TLS).
    public var clientIdentity: ClientIdentity? = nil
    /// Whether the server must staple a good OCSP response to its certificate.
    public var requiresOCSPStapling = false
    /// Decides, after the built-in checks passed, whether to trust the server's chain; runs on the
    /// transport's thread before any byte of the request is sent, so it must be quick.
    public var evaluator: ServerTrustEvaluator? = nil
    /// Turns off the check that the server's chain leads to a trusted root. **Insecure**: anyone
    /// on the path can then pose as the server. A client logs a warning once when it is used.
    public var insecureSkipsPeerVerification = false
    /// Turns off the check that the certificate names the host requested. **Insecure**, as above.
    public var insecureSkipsHostNameVerification = false
    /// Whether a response body framed by the connection's close (HTTP/1, no Content-Length, no
    /// chunks) must end with the server's TLS close_notify. On by default: a bare TCP close may be
    /// an attacker cutting the body short, and such a body fails with `connectionLost`. Off, a bare
    /// close ends the body, as browsers take it, for servers that never send close_notify. Checked
    /// where libcurl uses OpenSSL (elsewhere a bare close is not told apart), for each response.
    public var requiresCloseNotify = true

    /// The default: the system's roots, TLS 1.2 or newer, full verification, no pins, close_notify
    /// required.
    public init() {}

    /// Whether a verification is turned off.
    public var isInsecure: Bool { insecureSkipsPeerVerification || insecureSkipsHostNameVerification }

    /// A TLS protocol version.
    public enum TLSVersion: Sendable, Equatable {
        /// TLS 1.2.
        case tls12
        /// TLS 1.3.
        case tls13
    }

    /// The certificate authorities a server's chain must lead to.
    public enum TrustRoots: Sendable, Equatable {
        /// The system's store (Debian's `ca-certificates`).
        case system
        /// The system's store and these CA certificates (PEM, one or more).
        case systemAnd(pem: Data)
        /// Only these CA certificates (PEM, one or more): the system's store is not consulted.
        case only(pem: Data)

        /// The CA certificates given, if any.
        var pem: Data? {
            switch self {
            case .system: return nil
            case .systemAnd(let pem), .only(let pem): return pem
            }
        }
    }
}

extension TLSConfiguration {
    /// The configuration for `host` among `overrides` (by host name, case-insensitive), else this one.
    func resolved(for host: String?, in overrides: [String: TLSConfiguration]) -> TLSConfiguration {
        guard !overrides.isEmpty, let host else { return self }
        return overrides[host] ?? overrides.first { $0.key.caseInsensitiveEquals(host) }?.value ?? self
    }
}
