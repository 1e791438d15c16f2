import Foundation
import Sluice
import SluiceTesting
import Testing

/// The connection settings work through a client's configuration, for all of its requests, and
/// through one request's options, which win over the client's.
@Suite("Connection settings through a Client")
struct ClientConnectionsTests {
    @Test func aClientsProxyCarriesItsRequestsUnlessARequestSaysOtherwise() async throws {
        let proxy = try Socks5Proxy()
        defer { proxy.stop() }
        try await withServer { server, transport in
            var configuration = Client.Configuration()
            configuration.requestOptions.proxy = proxy.proxy
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            #expect(try await client.get("echo").value.status == 200)
            #expect(proxy.recorded.count == 1)

            // One request goes directly.
            var direct = try client.makeRequest(.get, "echo")
            direct.options.proxy = nil
            #expect(try await client.send(direct).value.status == 200)
            #expect(proxy.recorded.count == 1)
            #expect(try await client.get("echo").value.status == 200)
            // Through the proxy again: on the first request's tunnel, kept alive, or a new one;
            // never on the direct connection.
            let records = server.recordedRequests
            #expect(records.count == 3)
            #expect(records[1].connectionID != records[0].connectionID)
            #expect(records[2].connectionID == records[0].connectionID || proxy.recorded.count == 2)
        }
    }

    @Test func aClientsHostOverridesApplyToItsRequests() async throws {
        try await withServer { server, transport in
            var configuration = Client.Configuration()
            configuration.requestOptions.hostOverrides = [
                .resolve("api.example.test", port: server.port, to: "127.0.0.1")
            ]
            let client = try Client(
                baseURL: "http://api.example.test:\(server.port)/", configuration: configuration, transport: transport)
            #expect(try await client.get("echo").value.status == 200)
            #expect(server.recordedRequests.last?.target == "/echo")
            #expect(server.recordedRequests.last?.headers["Host"] == "api.example.test:\(server.port)")

            // One request without them: the name resolves nowhere.
            var plain = try client.makeRequest(.get, "echo")
            plain.options.hostOverrides = []
            await expectFailure(.dnsFailure) { try await client.send(plain).value }
        }
    }
}
