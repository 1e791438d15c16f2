import Foundation
import HTTPTypes
import MockServerAPI
import OpenAPIRuntime
import Sluice
import SluiceOpenAPI
import SluiceTesting
import Testing

/// The generated client of Tests/MockServerAPI/openapi.yaml, on Sluice, against MockServer.
@Suite struct OpenAPITransportTests {
    private func api(_ server: MockServer, _ transport: CurlTransport) throws -> MockServerAPI.Client {
        let client = try Sluice.Client(transport: transport)
        return MockServerAPI.Client(serverURL: server.baseURL, transport: SluiceClientTransport(client: client))
    }

    @Test func aStreamedUploadGetsAJSONReply() async throws {
        try await withServer { server, transport in
            let bytes = MockServer.deterministicBytes(count: 200_000)
            // An upload produced as it is sent, in chunks: the transport reads it all.
            let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
                for start in stride(from: 0, to: bytes.count, by: 16_384) {
                    continuation.yield(ArraySlice(bytes[start..<min(bytes.count, start + 16_384)]))
                }
                continuation.finish()
            }
            let output = try await api(server, transport).echo(
                body: .binary(HTTPBody(chunks, length: .known(Int64(bytes.count)))))
            let reply = try output.ok.body.json
            #expect(reply.method == "POST")
            #expect(reply.path == "/echo")
            #expect(reply.bodyLength == bytes.count)
            #expect(reply.bodyChecksum == MockServer.deterministicChecksum(count: bytes.count))
            let recorded = try #require(server.requests(to: .echo).first)
            #expect(recorded.headers["Content-Type"] == "application/octet-stream")
        }
    }

    @Test func aDownloadStreamsItsBody() async throws {
        try await withServer { server, transport in
            let count = 3_000_000
            let output = try await api(server, transport).downloadBytes(path: .init(count: count))
            let ok = try output.ok
            #expect(ok.headers.X_hyphen_Checksum == MockServer.deterministicChecksum(count: count))
            let body = try ok.body.binary
            #expect(body.length == .known(Int64(count)))
            var checksum = MockServer.Checksum()
            var received = 0
            var chunks = 0
            for try await chunk in body {
                received += chunk.count
                chunks += 1
                chunk.withUnsafeBytes { checksum.update($0) }
            }
            #expect(received == count)
            #expect(chunks > 1)
            #expect(checksum.value == MockServer.deterministicChecksum(count: count))
        }
    }

    @Test func aStatusTheDocumentDoesNotListIsItsDefault() async throws {
        try await withServer { server, transport in
            let api = try api(server, transport)
            if case .ok = try await api.getStatus(path: .init(code: 200)) {} else { Issue.record("200 is not ok") }
            guard case .default(let status, _) = try await api.getStatus(path: .init(code: 503)) else {
                Issue.record("503 is not the default response")
                return
            }
            #expect(status == 503)
        }
    }

    @Test func theRequestGoesThroughTheClientsChain() async throws {
        try await withServer { server, transport in
            var configuration = Sluice.Client.Configuration()
            configuration.defaultHeaders = ["X-From-Sluice": "yes"]
            let client = try Sluice.Client(configuration: configuration, transport: transport)
            let api = MockServerAPI.Client(serverURL: server.baseURL, transport: SluiceClientTransport(client: client))
            _ = try await api.echo(body: .binary(HTTPBody("hi")))
            #expect(server.requests(to: .echo).first?.headers["X-From-Sluice"] == "yes")
        }
    }

    @Test func aTransportErrorIsTheClientsError() async throws {
        try await RefusedAddress.withBaseURL { gone in
            let client = try Sluice.Client(transport: CurlTransport())
            let api = MockServerAPI.Client(serverURL: gone, transport: SluiceClientTransport(client: client))
            do {
                _ = try await api.getStatus(path: .init(code: 200))
                Issue.record("A request to a closed port succeeded.")
            } catch let error as ClientError {
                #expect(error.operationID == "getStatus")
                #expect((error.underlyingError as? SluiceError)?.code == .cannotConnect)
            }
        }
    }

    @Test func aCancelledCallThrowsCancellationError() async throws {
        try await withServer { server, transport in
            let client = try Sluice.Client(transport: transport)
            let sluiceTransport = SluiceClientTransport(client: client)
            let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/delay/10000")
            let task = Task {
                try await sluiceTransport.send(request, body: nil, baseURL: server.baseURL, operationID: "delay")
            }
            try await Task.sleep(for: .milliseconds(200))
            let started = ContinuousClock.now
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(ContinuousClock.now - started < .seconds(5))
        }
    }

    @Test func aBodyCutShortByCancellationThrows() async throws {
        try await withServer { server, transport in
            let sluiceTransport = SluiceClientTransport(client: try Sluice.Client(transport: transport))
            let drip = server.url(for: .drip(bytes: 10_000, chunks: 20, interval: .milliseconds(100)))
            let request = HTTPRequest(
                method: .get, scheme: nil, authority: nil, path: drip.path + "?" + (drip.query ?? ""))
            let task = Task {
                let (_, body) = try await sluiceTransport.send(
                    request, body: nil, baseURL: server.baseURL, operationID: "drip")
                var received = 0
                for try await chunk in try #require(body) { received += chunk.count }
                return received
            }
            try await Task.sleep(for: .milliseconds(400))
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
        }
    }

    @Test func aSlowUploadHoldsNoOtherTransferBack() async throws {
        try await withServer { server, transport in
            let client = try Sluice.Client(transport: transport)
            let sluiceTransport = SluiceClientTransport(client: client, bufferLimit: 64 << 10)
            // 4 chunks of 100 KB, of unknown length (sent chunked), each yielded only after other
            // requests on the same transport went through while the upload waited for it: a loop
            // thread blocked by the upload would never serve them, and the test would hang.
            let bytes = MockServer.deterministicBytes(count: 400_000)
            let (chunks, input) = AsyncStream.makeStream(of: ArraySlice<UInt8>.self)
            let request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/echo")
            let upload = Task {
                let (response, body) = try await sluiceTransport.send(
                    request, body: HTTPBody(chunks, length: .unknown), baseURL: server.baseURL, operationID: "echo")
                let data = try await Data(collecting: try #require(body), upTo: 1 << 20)
                return (response, try JSONDecoder().decode(EchoReply.self, from: data))
            }
            for start in stride(from: 0, to: bytes.count, by: 100_000) {
                input.yield(ArraySlice(bytes[start..<start + 100_000]))
                _ = try await client.get(server.url(for: .echo).absoluteString).value
                #expect(server.requests(to: "/echo").filter { $0.method == "POST" }.isEmpty, "the upload is not done")
            }
            input.finish()

            let (response, reply) = try await upload.value
            #expect(response.status == .ok)
            #expect(reply.bodyLength == bytes.count)
            #expect(reply.bodyChecksum == MockServer.deterministicChecksum(count: bytes.count))
            #expect(reply.header("Transfer-Encoding") == "chunked")
        }
    }

    @Test func aBodyThatFailsFailsTheRequest() async throws {
        try await withServer { server, transport in
            struct Broken: Error {}
            let sluiceTransport = SluiceClientTransport(client: try Sluice.Client(transport: transport))
            let chunks = AsyncThrowingStream<ArraySlice<UInt8>, any Error> { continuation in
                continuation.yield(ArraySlice(repeating: 1, count: 100_000))
                continuation.finish(throwing: Broken())
            }
            let request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/echo")
            await #expect(throws: SluiceError.self) {
                _ = try await sluiceTransport.send(
                    request, body: HTTPBody(chunks, length: .unknown), baseURL: server.baseURL, operationID: "echo")
            }
        }
    }
}
