import FoundationEssentials

/// Decides whether to trust a server, from its certificate chain, after the built-in checks
/// (trust roots, host name, pins) passed; like one of Alamofire's `ServerTrustEvaluating`.
///
/// It runs on the transport's thread for every request, on a new or a reused connection, before
/// any byte of the request is sent: keep it quick and do no I/O there.
///
/// ```swift
/// options.tls.evaluator = ServerTrustEvaluator { chain in
///     chain.certificates.count >= 2   // refuse a certificate that came without its intermediate
/// }
/// ```
public final class ServerTrustEvaluator: Sendable, Equatable {
    private let decide: @Sendable (PeerChain) -> Bool

    /// An evaluator: `decide` returns true to trust the server.
    public init(_ decide: @escaping @Sendable (PeerChain) -> Bool) {
        self.decide = decide
    }

    func evaluate(_ chain: PeerChain) -> Bool { decide(chain) }

    /// Two evaluators are equal when they are the same object.
    public static func == (lhs: ServerTrustEvaluator, rhs: ServerTrustEvaluator) -> Bool { lhs === rhs }
}

/// A server's certificates as the TLS handshake presented them.
public struct PeerChain: Sendable {
    /// The host requested.
    public let host: String
    /// The certificates the server sent, in DER, its own first.
    public let certificates: [Data]
    /// The chain OpenSSL verified, in DER, from the server's certificate up to the trusted root
    /// (empty when verification was turned off).
    public let verifiedChain: [Data]
}
