import FoundationEssentials

/// A SHA-256 pin of a server's public key: the hash of its DER SubjectPublicKeyInfo, as OkHttp's
/// `CertificatePinner` and HPKP used. A key survives the renewal of its certificate.
///
/// Make one from `openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der |
/// openssl dgst -sha256 -binary | base64`.
public struct PublicKeyPin: Sendable, Hashable {
    /// The 32 bytes of the hash.
    public let sha256: Data

    /// A pin from its 32 bytes.
    public init(sha256: Data) throws(SluiceError) {
        self.sha256 = try Self.checked(sha256)
    }

    /// A pin from `sha256//BASE64` (libcurl's and HPKP's form) or the Base64 of the hash alone.
    public init(_ text: String) throws(SluiceError) {
        try self.init(sha256: Self.hash(fromPin: text))
    }

    /// The pin as libcurl takes it.
    var curlForm: String { "sha256//" + sha256.base64EncodedString() }

    /// `hash` if it is the 32 bytes of a SHA-256.
    static func checked(_ hash: Data) throws(SluiceError) -> Data {
        guard hash.count == 32 else {
            throw SluiceError(.invalidOption, "A SHA-256 pin has 32 bytes, not \(hash.count).")
        }
        return hash
    }

    /// The 32 bytes of a `sha256//BASE64` or plain Base64 pin.
    static func hash(fromPin text: String) throws(SluiceError) -> Data {
        let base64 = text.hasPrefix("sha256//") ? String(text.dropFirst("sha256//".count)) : text
        guard let bytes = Data(base64Encoded: base64) else {
            throw SluiceError(.invalidOption, "The pin \(text.debugDescription) is not Base64 of a SHA-256 hash.")
        }
        return bytes
    }
}

/// A SHA-256 pin of a certificate: the hash of its DER. It matches the server's certificate or any
/// certificate of the chain it was verified by (an intermediate, or the root in the trust store).
///
/// Make one from `openssl x509 -in cert.pem -outform der | openssl dgst -sha256 -binary | base64`.
public struct CertificatePin: Sendable, Hashable {
    /// The 32 bytes of the hash.
    public let sha256: Data

    /// A pin from its 32 bytes.
    public init(sha256: Data) throws(SluiceError) {
        self.sha256 = try PublicKeyPin.checked(sha256)
    }

    /// A pin from `sha256//BASE64` or the Base64 of the hash alone.
    public init(_ text: String) throws(SluiceError) {
        try self.init(sha256: PublicKeyPin.hash(fromPin: text))
    }
}

/// A client certificate and its key, for servers that ask for one (mutual TLS).
public struct ClientIdentity: Sendable, Equatable {
    /// The certificate in PEM, optionally followed by its intermediates.
    public var certificate: Data
    /// The private key in PEM, encrypted if `passphrase` is given.
    public var privateKey: Data
    /// The passphrase of an encrypted key.
    public var passphrase: String?

    /// An identity from PEM data.
    public init(certificate: Data, privateKey: Data, passphrase: String? = nil) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.passphrase = passphrase
    }

    /// An identity from PEM files.
    public init(certificateFile: String, privateKeyFile: String, passphrase: String? = nil) throws(SluiceError) {
        do {
            certificate = try Data(contentsOf: URL(fileURLWithPath: certificateFile))
            privateKey = try Data(contentsOf: URL(fileURLWithPath: privateKeyFile))
        } catch {
            throw SluiceError(.invalidOption, "The client certificate or key could not be read: \(error).")
        }
        self.passphrase = passphrase
    }
}
