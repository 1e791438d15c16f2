import Foundation
import Sluice
import SluiceTesting

/// Runs `body` with a fresh MockServer and a fresh CurlTransport, and shuts the server down after,
/// awaited, also when `body` throws.
func withServer<T>(_ body: (MockServer, CurlTransport) async throws -> T) async throws -> T {
    let server = try await MockServer.start()
    let transport = CurlTransport()
    defer { withExtendedLifetime(transport) {} }
    let result: T
    do {
        result = try await body(server, transport)
    } catch {
        try? await server.shutdown()
        throw error
    }
    try await server.shutdown()
    return result
}

/// The echo route's reply to `response`.
func echo(of response: Response) throws -> EchoReply {
    try JSONDecoder().decode(EchoReply.self, from: response.body)
}

/// A file in a fresh temporary directory, removed with it by `cleanUp`.
struct TemporaryFile {
    let directory: URL
    let url: URL

    init(named name: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-eco-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent(name)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }
}
