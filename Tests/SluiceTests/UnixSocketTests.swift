import Foundation
import Sluice
import SluiceTesting
import Testing

/// Clients and requests whose connections go to a Unix domain socket, as the Docker Engine API is
/// reached, against a MockServer listening on one.
@Suite("Unix domain sockets")
struct UnixSocketTests {
    /// A socket path in a directory of its own, short enough for `sun_path` (108 bytes).
    private static func socketPath() throws -> String {
        let directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("sluice-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("api.sock").path
    }

    @Test func aClientOnASocketReachesTheServer() async throws {
        let path = try Self.socketPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try await withServer(MockServer.start(unixSocketPath: path)) { server, transport in
            #expect(server.baseURL.absoluteString == "http://localhost/")
            #expect(server.unixSocketPath == path)
            server.script("v1.43/containers/json", .json("[]"))
            let client = try Client(unixSocket: path, baseURL: "http://localhost/v1.43/", transport: transport)
            let response = try await client.get("containers/json", parameters: ["all": "1"]).value
            #expect(response.status == 200)
            #expect(response.body == Data("[]".utf8))
            #expect(server.recordedRequests.last?.target == "/v1.43/containers/json?all=1")
            #expect(server.recordedRequests.last?.headers["Host"] == "localhost")
        }
    }

    @Test func aRequestChoosesASocketInItsOptions() async throws {
        let path = try Self.socketPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try await withServer(MockServer.start(unixSocketPath: path)) { server, transport in
            var options = RequestOptions()
            options.unixSocketPath = path
            // The URL's host and port are only the Host header: nothing is looked up or dialled.
            let response = try await transport.send(
                URL(string: "http://docker.example.test:2375/echo")!, options: options)
            #expect(response.status == 200)
            #expect(server.recordedRequests.last?.headers["Host"] == "docker.example.test:2375")
        }
    }

    /// A request on a socket that answers nothing ends with the idle timeout: the ports that tell
    /// a TCP connection apart are zero on a Unix socket, which must not read as "no connection yet".
    @Test func aStalledRequestOnASocketEndsWithTheIdleTimeout() async throws {
        let path = try Self.socketPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try await withServer(MockServer.start(unixSocketPath: path)) { server, transport in
            var options = RequestOptions()
            options.unixSocketPath = path
            options.idleTimeout = .milliseconds(400)
            let url = URL(string: "http://localhost" + server.url(for: .fault(.neverRespond)).path)!
            let error = await expectFailure(.timedOut) { try await transport.send(url, options: options) }
            #expect(error?.timeout == .idle)
        }
    }

    @Test func aMissingOrInvalidSocketFailsNamingIt() async throws {
        let path = try Self.socketPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let client = try Client(unixSocket: path, transport: CurlTransport())
        let error = await expectFailure(.cannotConnect) { try await client.get("echo").value }
        #expect(error?.message.contains("the Unix socket \(path)") == true, "\(String(describing: error))")

        let long = "/tmp/" + String(repeating: "s", count: 120)
        #expect(throws: SluiceError.self) { try Client(unixSocket: long) }
        var options = RequestOptions()
        options.unixSocketPath = ""
        await expectFailure(.invalidOption) {
            try await CurlTransport().send(URL(string: "http://localhost/")!, options: options)
        }
    }
}
