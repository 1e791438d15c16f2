import FoundationEssentials
import Sluice
import Synchronization

/// The reachability of each host a client asked about, made on first use (most clients never
/// ask) and shared by every client of that host: one routing lookup and one debounce per host.
private let reachabilityByHost = Mutex<[String: Reachability]>([:])

extension Client {
    /// Whether the base URL's host can be reached (the default route when the client has no base
    /// URL), from the kernel's routing tables; made on first use, and shared by the clients of
    /// that host.
    ///
    ///     client.reachability.status.producer.startWithValues { print($0) }   // reachable(via: ethernet)…
    public var reachability: Reachability {
        guard let host = baseURL?.host else { return Reachability.shared }
        return reachabilityByHost.withLock { known in
            if let made = known[host] { return made }
            let made = Reachability(host: host)
            known[host] = made
            return made
        }
    }
}
