import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Proxy settings from the environment apply only when a request asks for them
/// (`RequestOptions.proxyFromEnvironment`). A MockServer stands in for a plain HTTP proxy: it
/// records the absolute-form target a proxied request is sent with and answers it.
@Suite("Proxy settings and the environment")
struct ProxyEnvironmentTests {
    /// `no_proxy` naming the loopback address, set for the whole test process and left set
    /// (replacing any value the environment had).
    ///
    /// Only `no_proxy`: a proxy variable (`http_proxy`) would send other tests' URLSession requests
    /// through these tests' servers. `no_proxy` only matters to requests that use a proxy: the
    /// other test that does (through a CONNECT tunnel) does not ask for the environment's settings.
    /// Set once: glibc's `setenv` copies the environment into a new array the first time and
    /// reallocates that array when it adds a variable later, which another thread's `getenv` could
    /// be reading.
    private static let loopbackBypassesProxies: Void = { setenv("no_proxy", "127.0.0.1", 1) }()

    @Test func aChosenProxyIsUsedUnlessTheEnvironmentIsAskedFor() async throws {
        Self.loopbackBypassesProxies
        try await withServers { proxy, origin, transport in
            var chosen = RequestOptions()
            chosen.proxy = try Proxy(url: proxy.baseURL.absoluteString)
            var withEnvironment = chosen
            withEnvironment.proxyFromEnvironment = true
            // One transport, so that a pooled handle goes from one setting to the other and back.
            for options in [chosen, withEnvironment, chosen, withEnvironment] {
                let response = try await transport.send(origin.url(for: .echo), options: options)
                #expect(response.status == 200)
            }
            // The chosen proxy whatever no_proxy says; no_proxy honoured when the environment is asked for.
            #expect(
                proxy.recordedRequests.map(\.target)
                    == Array(repeating: origin.url(for: .echo).absoluteString, count: 2))
            #expect(origin.recordedRequests.map(\.target) == ["/echo", "/echo"])
        }
    }
}
