import FoundationEssentials
import Synchronization

/// The client's reachability, made on first use (most clients never ask).
final class LazyReachability: Sendable {
    private let host: String?
    private let instance = Mutex<Reachability?>(nil)

    init(host: String?) {
        self.host = host
    }

    var value: Reachability {
        instance.withLock { stored in
            if let stored { return stored }
            let made = host.map { Reachability(host: $0) } ?? Reachability.shared
            stored = made
            return made
        }
    }
}

extension Client {
    /// Whether the base URL's host can be reached (the default route when the client has no base
    /// URL), from the kernel's routing tables; made on first use.
    ///
    ///     client.reachability.status.producer.startWithValues { print($0) }   // reachable(via: ethernet)…
    public var reachability: Reachability { lazyReachability.value }
}
