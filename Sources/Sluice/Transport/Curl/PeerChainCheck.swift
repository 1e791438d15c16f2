internal import CCurl
import FoundationEssentials

/// Checks a server's certificates against certificate pins and the evaluator of a request's
/// `TLSConfiguration`, from the prerequest callback: for every request, on a new or a reused
/// connection, before any byte of the request is sent. libcurl has no option for either, so the
/// chain is read from the connection's OpenSSL object, through functions found at run time in the
/// OpenSSL libcurl loaded.
enum PeerChainCheck {
    /// Why a chain was refused.
    struct Refusal: Equatable {
        let reason: TLSFailureReason
        let message: String
    }

    private static let openssl = sluice_openssl_lookup()

    /// Nil when the connection may be used; the refusal otherwise.
    static func refusal(of tls: TLSConfiguration, on easy: EasyHandle, host: String) -> Refusal? {
        guard let connection = sluice_easy_openssl_connection(easy.raw) else {
            return Refusal(
                reason: .handshakeFailed,
                message: "certificate pins and trust evaluators need libcurl built with OpenSSL")
        }
        guard let chain = chain(of: connection, host: host) else {
            return Refusal(reason: .handshakeFailed, message: "the server's certificates could not be read")
        }
        if !tls.certificatePins.isEmpty {
            let pinned = Set(tls.certificatePins.map(\.sha256))
            let hashes = (chain.certificates + chain.verifiedChain).compactMap(sha256)
            guard hashes.contains(where: pinned.contains) else {
                return Refusal(
                    reason: .pinMismatch,
                    message: "no certificate of the chain matches a certificate pin (the chain's: \(describe(hashes)))")
            }
        }
        if let evaluator = tls.evaluator, !evaluator.evaluate(chain) {
            return Refusal(reason: .evaluatorRefused, message: "the server trust evaluator refused the chain")
        }
        return nil
    }

    /// The certificates of the connection's peer, in DER.
    private static func chain(of connection: UnsafeMutableRawPointer, host: String) -> PeerChain? {
        guard let peerChain = openssl.get_peer_chain, let count = openssl.stack_count,
            let value = openssl.stack_value, let toDER = openssl.certificate_der, let free = openssl.free_memory
        else { return nil }
        func certificates(of stack: UnsafeMutableRawPointer?) -> [Data] {
            guard let stack else { return [] }
            return (0..<count(stack)).compactMap { index -> Data? in
                guard let certificate = value(stack, index) else { return nil }
                var bytes: UnsafeMutablePointer<UInt8>? = nil
                let length = toDER(certificate, &bytes)
                guard length > 0, let bytes else { return nil }
                defer { free(bytes, nil, 0) }
                return Data(bytes: bytes, count: Int(length))
            }
        }
        let sent = certificates(of: peerChain(connection))
        let verified = openssl.get_verified_chain.map { certificates(of: $0(connection)) } ?? []
        return PeerChain(host: host, certificates: sent, verifiedChain: verified)
    }

    /// The TLS version, cipher and ALPN protocol of the connection a transfer is about to use.
    static func session(on easy: EasyHandle) -> TLSSession? {
        guard let connection = sluice_easy_openssl_connection(easy.raw) else { return nil }
        var alpn: String? = nil
        if let selected = openssl.alpn_selected {
            var bytes: UnsafePointer<UInt8>? = nil
            var length: UInt32 = 0
            selected(connection, &bytes, &length)
            if let bytes, length > 0 {
                alpn = String(decoding: UnsafeBufferPointer(start: bytes, count: Int(length)), as: UTF8.self)
            }
        }
        let cipher = openssl.current_cipher.flatMap { $0(connection) }
        return TLSSession(
            version: openssl.version?(connection), cipher: cipher.flatMap { openssl.cipher_name?($0) }, alpn: alpn)
    }

    /// The SHA-256 of `data`, by OpenSSL.
    static func sha256(_ data: Data) -> Data? {
        guard let hash = openssl.sha256 else { return nil }
        var digest = Data(count: 32)
        digest.withUnsafeMutableBytes { output in
            data.withUnsafeBytes { input in
                _ = hash(
                    input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count,
                    output.baseAddress?.assumingMemoryBound(to: UInt8.self))
            }
        }
        return digest
    }

    private static func describe(_ hashes: [Data]) -> String {
        hashes.map { "sha256//" + $0.base64EncodedString() }.joined(separator: ", ")
    }
}

/// What a TLS connection negotiated. The version's and cipher's names are OpenSSL's own static
/// strings, read only when metrics are made.
struct TLSSession {
    let version: UnsafePointer<CChar>?
    let cipher: UnsafePointer<CChar>?
    let alpn: String?
}

extension TLSConfiguration {
    /// Whether requests need `PeerChainCheck`: certificate pins or an evaluator.
    var checksPeerChain: Bool { !certificatePins.isEmpty || evaluator != nil }
}
