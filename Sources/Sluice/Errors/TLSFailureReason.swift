/// Why a TLS connection failed (`SluiceError.tlsFailure`), told apart from libcurl's result code
/// and OpenSSL's message.
public enum TLSFailureReason: String, Sendable, Equatable {
    /// The chain leads to no trusted root: an unknown or self-signed issuer.
    case untrustedIssuer
    /// A certificate of the chain has expired.
    case expired
    /// A certificate of the chain is not valid yet.
    case notYetValid
    /// The certificate does not name the host requested.
    case hostNameMismatch
    /// No public-key or certificate pin matched.
    case pinMismatch
    /// The `ServerTrustEvaluator` refused the chain.
    case evaluatorRefused
    /// The server asked for a client certificate and none was given.
    case clientCertificateRequired
    /// The server refused the client certificate given.
    case clientCertificateRefused
    /// The client certificate or key could not be used (not PEM, wrong passphrase, key mismatch).
    case clientCertificateUnusable
    /// The two sides share no TLS version (the server's is older than `minimumVersion`, say).
    case protocolVersion
    /// OCSP stapling was required and the server stapled no good response.
    case certificateStatus
    /// Anything else in the handshake: an alert, a malformed record, a closed connection.
    case handshakeFailed
}

extension TLSFailureReason {
    /// The reason behind libcurl's `code` (a TLS code) and its message.
    init(curlCode: Int, message: String) {
        let text = message.lowercased()
        switch curlCode {
        case 90: self = .pinMismatch  // CURLE_SSL_PINNEDPUBKEYNOTMATCH
        case 91: self = .certificateStatus  // CURLE_SSL_INVALIDCERTSTATUS
        case 58: self = .clientCertificateUnusable  // CURLE_SSL_CERTPROBLEM
        default:
            if text.contains("has expired") {
                self = .expired
            } else if text.contains("not yet valid") {
                self = .notYetValid
            } else if text.contains("subject name") || text.contains("does not match target host") {
                self = .hostNameMismatch
            } else if text.contains("certificate required") {
                self = .clientCertificateRequired
            } else if text.contains("alert unknown ca") || text.contains("alert bad certificate")
                || text.contains("alert certificate unknown")
            {
                self = .clientCertificateRefused
            } else if text.contains("local issuer") || text.contains("self-signed") || text.contains("self signed")
                || text.contains("unable to get issuer")
            {
                self = .untrustedIssuer
            } else if text.contains("protocol version") || text.contains("unsupported protocol")
                || text.contains("no protocols available")
            {
                self = .protocolVersion
            } else if text.contains("ocsp") {
                self = .certificateStatus
            } else {
                self = .handshakeFailed
            }
        }
    }
}
