import Foundation
import Sluice
import SluiceTesting
import Testing

/// What the *Configuring requests* article says of sharing a transport: clients on one transport
/// share its connections; clients on two transports do not.
@Suite("Sharing a transport")
struct TransportSharingTests {
    @Test func clientsOnOneTransportReuseEachOthersConnections() async throws {
        try await withServer { server, transport in
            let first = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let second = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            _ = try await first.get("status/200").value
            _ = try await second.get("status/200").value
            #expect(server.connectionCount == 1)
        }
    }

    @Test func clientsOnTwoTransportsHaveTheirOwnPools() async throws {
        try await withServer { server, transport in
            let own = CurlTransport(configuration: .init(maximumConnectionsPerHost: 2))
            #expect(own.configuration.maximumConnectionsPerHost == 2)
            #expect(own.configuration.maximumConnections == CurlTransport.Configuration().maximumConnections)
            let first = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let second = try Client(baseURL: server.baseURL.absoluteString, transport: own)
            _ = try await first.get("status/200").value
            _ = try await second.get("status/200").value
            #expect(server.connectionCount == 2)
            withExtendedLifetime(own) {}
        }
    }
}
