import Foundation
import Sluice
import SluiceTesting
import Testing

/// A body read to the close of a TLS connection ends only with the server's close_notify, over a
/// MockServer with TLS on certificates the tests make (`TestPKI`). The hostile-input suite has the
/// single-request cases; these cover a stream and a client whose connections come and go.
@Suite("TLS close_notify")
struct TLSCloseNotifyTests {
    private static let head = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"

    private static func client(_ server: MockServer, _ transport: CurlTransport) async throws -> Client {
        var configuration = Client.Configuration()
        configuration.requestOptions.tls.trustRoots = .only(pem: try await TestPKI.shared.authorityCertificate)
        return try Client(baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
    }

    /// A stream hands over the bytes as they come, then fails at the bare close instead of ending.
    @Test func aStreamCutByABareCloseFailsAfterItsChunks() async throws {
        let server = try await MockServer.start(tls: try await TestPKI.shared.serverTLS)
        try await withServer(server) { server, transport in
            let client = try await Self.client(server, transport)
            server.script("/cut", wire: .text(Self.head + "first part"), .pause(.milliseconds(50)), .closeWithoutNotify)
            var received = Data()
            let error = await #expect(throws: SluiceError.self) {
                for try await chunk in try client.stream("cut").values { received.append(chunk) }
            }
            #expect(error?.code == .connectionLost)
            #expect(error?.message.contains("close_notify") == true, "\(String(describing: error))")
            #expect(received == Data("first part".utf8))
        }
    }

    /// Requests that keep their connection, bodies read to a close with close_notify and ones cut
    /// by a bare close, alternating on one client and one transport: each ends as its own
    /// connection did, whatever the transfers before it watched.
    @Test func eachRequestEndsAsItsOwnConnectionDid() async throws {
        let server = try await MockServer.start(tls: try await TestPKI.shared.serverTLS)
        try await withServer(server) { server, transport in
            let client = try await Self.client(server, transport)
            server.script("/notified", wire: .text(Self.head + "whole"), .close)
            server.script("/cut", wire: .text(Self.head + "part"), .closeWithoutNotify)
            for round in 0..<3 {
                let kept = try await client.get(server.url(for: .bytes(2_000)).absoluteString).data().value
                #expect(kept.count == 2_000, "round \(round)")
                #expect(try await client.get("notified").data().value == Data("whole".utf8), "round \(round)")
                let error = await #expect(throws: SluiceError.self, "round \(round)") {
                    _ = try await client.get("cut").data().value
                }
                #expect(error?.code == .connectionLost, "round \(round)")
                #expect(error?.message.contains("close_notify") == true, "round \(round)")
            }
            // A request whose connection is kept alive still ends well after all of that.
            let last = try await client.get(server.url(for: .bytes(10)).absoluteString).data().value
            #expect(last.count == 10)
        }
    }
}
