import Logging
import Synchronization

/// Warns once per client, through swift-log, that a request of it turned a TLS verification off:
/// such a setting is easy to leave behind after a test, and must not go unnoticed.
final class InsecureTLSWarning: Sendable {
    private let warned = Atomic<Bool>(false)
    private let logger: Logger

    init(logger: Logger = Logger(label: "sluice")) { self.logger = logger }

    /// Warns if `options` turn a verification off and this client has not warned yet.
    @inline(__always)
    func note(_ options: RequestOptions) {
        guard options.tls.isInsecure || !options.tlsForHosts.isEmpty else { return }
        noteSlowly(options)
    }

    private func noteSlowly(_ options: RequestOptions) {
        let insecure = options.tls.isInsecure || options.tlsForHosts.values.contains(where: \.isInsecure)
        guard insecure, !warned.exchange(true, ordering: .relaxed) else { return }
        logger.warning(
            "TLS verification is turned off (insecureSkipsPeerVerification or insecureSkipsHostNameVerification): anyone on the network path can pose as the server."
        )
    }
}
