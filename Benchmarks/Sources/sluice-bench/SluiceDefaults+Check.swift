import BenchChild
import Sluice

extension SluiceDefaults {
    /// Throws unless the C client's copies still equal `CurlTransport.Configuration()`'s defaults:
    /// the C child cannot read them itself (it does not link Sluice), and with other limits the two
    /// clients would no longer do the same work.
    static func verify() throws(BenchmarkFailure) {
        let defaults = CurlTransport.Configuration()
        let copies = [
            ("maximumConnections", maximumConnections, defaults.maximumConnections),
            ("maximumConnectionsPerHost", maximumConnectionsPerHost, defaults.maximumConnectionsPerHost),
            ("connectionCacheSize", connectionCacheSize, defaults.connectionCacheSize),
        ]
        let stale = copies.filter { $0.1 != $0.2 }.map { "\($0.0) is \($0.1), CurlTransport's is \($0.2)" }
        guard stale.isEmpty else {
            throw BenchmarkFailure(
                "SluiceDefaults (Benchmarks/Sources/BenchChild) is out of date: " + stale.joined(separator: "; "))
        }
    }
}
