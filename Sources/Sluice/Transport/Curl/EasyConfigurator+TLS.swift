internal import CCurl
import FoundationEssentials

/// The TLS options of a transfer, every one set for every transfer to the request's value or
/// libcurl's default (see `EasyConfigurator.setRequestOptions`): none outlives its request.
///
/// libcurl reuses a connection only for a request whose TLS options match the ones it was made
/// with (trust roots, version, pins, client certificate, verification; `PooledHandleTests` and
/// `TLSTrustTests` hold it to that). Certificate pins and the evaluator are not libcurl's: they are
/// checked for every request, on new and reused connections, by `TransferContext.checkPeer`.
extension EasyConfigurator {
    static func setTLSOptions(_ tls: TLSConfiguration, on easy: EasyHandle) throws(SluiceError) {
        let paths = DefaultTrustPaths.shared
        try easy.set(CURLOPT_SSL_VERIFYPEER, !tls.insecureSkipsPeerVerification)
        try easy.set(CURLOPT_SSL_VERIFYHOST, tls.insecureSkipsHostNameVerification ? 0 : 2)
        try easy.set(CURLOPT_SSL_VERIFYSTATUS, tls.requiresOCSPStapling)
        try easy.set(
            CURLOPT_SSLVERSION,
            Int(tls.minimumVersion == .tls13 ? CURL_SSLVERSION_TLSv1_3 : CURL_SSLVERSION_TLSv1_2))
        // A blob of roots overrides libcurl's CA file; its CA directory is still read, unless the
        // roots replace the system's.
        try easy.set(CURLOPT_CAINFO_BLOB, blob: tls.trustRoots.pem)
        try easy.set(CURLOPT_CAINFO, optional: paths.file)
        switch tls.trustRoots {
        case .system: try easy.set(CURLOPT_CAPATH, optional: paths.directory)
        case .systemAnd: try easy.set(CURLOPT_CAPATH, optional: paths.directory)
        case .only: try easy.set(CURLOPT_CAPATH, optional: nil)
        }
        try easy.set(
            CURLOPT_PINNEDPUBLICKEY,
            optional: tls.publicKeyPins.isEmpty ? nil : tls.publicKeyPins.map(\.curlForm).joined(separator: ";"))
        try easy.set(CURLOPT_SSLCERT_BLOB, blob: tls.clientIdentity?.certificate)
        try easy.set(CURLOPT_SSLKEY_BLOB, blob: tls.clientIdentity?.privateKey)
        try easy.set(CURLOPT_KEYPASSWD, optional: tls.clientIdentity?.passphrase)
        let type = tls.clientIdentity == nil ? nil : "PEM"
        try easy.set(CURLOPT_SSLCERTTYPE, optional: type)
        try easy.set(CURLOPT_SSLKEYTYPE, optional: type)
    }
}

/// Where libcurl looks for the system's CA certificates by default (its build's CA file and
/// directory), read once: setting a blob of roots and back needs them.
struct DefaultTrustPaths: Sendable {
    let file: String?
    let directory: String?

    static let shared: DefaultTrustPaths = {
        guard let easy = curl_easy_init() else { return DefaultTrustPaths(file: nil, directory: nil) }
        defer { curl_easy_cleanup(easy) }
        func read(_ info: CURLINFO) -> String? {
            var value: UnsafeMutablePointer<CChar>? = nil
            guard sluice_easy_getinfo_string(easy, info, &value) == CURLE_OK, let value else { return nil }
            return String(cString: value)
        }
        return DefaultTrustPaths(file: read(CURLINFO_CAINFO), directory: read(CURLINFO_CAPATH))
    }()
}

extension EasyHandle {
    /// Sets a blob option to a copy of `data`, or clears it for nil.
    func set(_ option: CURLoption, blob data: Data?) throws(SluiceError) {
        let code: CURLcode
        if let data {
            code = data.withUnsafeBytes { sluice_easy_setopt_blob(raw, option, $0.baseAddress, $0.count) }
        } else {
            code = sluice_easy_setopt_blob(raw, option, nil, 0)
        }
        try Curl.check(code, "option \(option.rawValue)")
    }
}
