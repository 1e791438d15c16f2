import Foundation
import Sluice
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
    /// `no_proxy` naming the loopback address, set once for the whole test process and left set.
    ///
    /// Only `no_proxy`: a proxy variable (`http_proxy`) would send other tests' URLSession requests
    /// through these tests' servers. `no_proxy` matters only to a client that uses a proxy, and no
    /// other test does. Set once and never removed, so that no other thread can be reading the
    /// environment while its array is reallocated (glibc's `setenv` grows it in place of the old).
    private static let loopbackBypassesProxies: Void = { setenv("no_proxy", "127.0.0.1", 1) }()

    @Test func aChosenProxyIsUsedWhateverTheEnvironmentSays() async throws {
        Self.loopbackBypassesProxies
        let (proxy, origin) = (try await MockServer.start(), try await MockServer.start())
        var options = RequestOptions()
        options.proxy = proxy.baseURL.absoluteString
        let response = try await CurlTransport().send(origin.url(for: .echo), options: options)
        #expect(response.status == 200)
        #expect(proxy.recordedRequests.map(\.target) == [origin.url(for: .echo).absoluteString])
        #expect(origin.recordedRequests.isEmpty)
        try await proxy.shutdown()
        try await origin.shutdown()
    }

    @Test func noProxyFromTheEnvironmentAppliesWhenAskedFor() async throws {
        Self.loopbackBypassesProxies
        let (proxy, origin) = (try await MockServer.start(), try await MockServer.start())
        var options = RequestOptions()
        options.proxy = proxy.baseURL.absoluteString
        options.proxyFromEnvironment = true
        let response = try await CurlTransport().send(origin.url(for: .echo), options: options)
        #expect(response.status == 200)
        #expect(proxy.recordedRequests.isEmpty)
        #expect(origin.recordedRequests.map(\.target) == ["/echo"])
        try await proxy.shutdown()
        try await origin.shutdown()
    }
}
