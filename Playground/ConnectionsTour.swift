import Foundation
import Sluice
import SluiceTesting

/// Step: where connections go. A client whose requests all go to a Unix domain socket, as the
/// Docker Engine API is reached, and a host name DNS does not know sent to an address chosen here,
/// the request keeping its name in `Host`. (Proxies are request options too: `options.proxy`.)
enum ConnectionsTour {
    static func run() async throws {
        Tour.step("Connections: a Unix socket and a host override")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-tour-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("engine.sock").path

        // A MockServer listening on a socket stands in for the Docker Engine.
        let engine = try await MockServer.start(unixSocketPath: path)
        engine.script("v1.43/containers/json", .json(#"[{"Id":"4f1a","Image":"nginx"}]"#))
        let docker = try Client(unixSocket: path, baseURL: "http://localhost/v1.43/")
        let containers = try await docker.get("containers/json", parameters: ["all": "1"]).validate().string().value
        print("  GET /v1.43/containers/json over \(path): \(containers)")
        try await engine.shutdown()

        // `api.example.test` goes to 127.0.0.1, for this client's requests only.
        let server = try await MockServer.start()
        var configuration = Client.Configuration()
        configuration.requestOptions.hostOverrides = [
            .resolve("api.example.test", port: server.port, to: "127.0.0.1")
        ]
        let client = try Client(baseURL: "http://api.example.test:\(server.port)/", configuration: configuration)
        let echo = try await client.get("echo").validate().decode(EchoReply.self).value
        let host = echo.headers.first { $0.first?.lowercased() == "host" }?.last ?? "?"
        print("  api.example.test reached 127.0.0.1; the server saw Host: \(host)")
        try await server.shutdown()
    }
}
