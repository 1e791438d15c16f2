import Foundation
import Sluice
import SluiceTesting
import Testing

@Suite("MockDownload replies")
struct MockDownloadTests {
    static let body = MockServer.deterministicBytes(count: 1000)

    @Test func rangesValidatorsAndResets() async throws {
        try await withServer { server, transport in
            let file = MockDownload(body: Self.body, entityTag: "\"t\"", lastModified: "Wed, 01 Jan 2025 00:00:00 GMT")
            server.respond("/f") { request in
                file.reply(to: request, resettingAfter: request.headers["X-Cut"].flatMap { Int($0) })
            }
            let url = server.baseURL.appendingPathComponent("f")
            let whole = try await transport.send(url)
            #expect(whole.status == 200)
            #expect(whole.body == Self.body)
            #expect(whole.headers["ETag"] == "\"t\"")
            #expect(whole.headers["Accept-Ranges"] == "bytes")

            let part = try await transport.send(url, headers: ["Range": "bytes=990-", "If-Range": "\"t\""])
            #expect(part.status == 206)
            #expect(part.headers["Content-Range"] == "bytes 990-999/1000")
            #expect(part.body == Self.body.suffix(10))

            let byDate = try await transport.send(
                url, headers: ["Range": "bytes=990-", "If-Range": "Wed, 01 Jan 2025 00:00:00 GMT"])
            #expect(byDate.status == 206)

            let changed = try await transport.send(url, headers: ["Range": "bytes=990-", "If-Range": "\"old\""])
            #expect(changed.status == 200)
            #expect(changed.body == Self.body)

            let past = try await transport.send(url, headers: ["Range": "bytes=1000-"])
            #expect(past.status == 416)
            #expect(past.headers["Content-Range"] == "bytes */1000")

            let error = await #expect(throws: SluiceError.self) {
                try await transport.send(url, headers: ["X-Cut": "100"])
            }
            #expect(error?.code == .connectionLost)
        }
    }

    @Test func aServerWithoutRangesSendsItAll() async throws {
        try await withServer { server, transport in
            let file = MockDownload(body: Self.body, entityTag: "\"t\"", servesRanges: false)
            server.respond("/f") { file.reply(to: $0) }
            let response = try await transport.send(
                server.baseURL.appendingPathComponent("f"), headers: ["Range": "bytes=10-"])
            #expect(response.status == 200)
            #expect(response.body == Self.body)
            #expect(response.headers["Accept-Ranges"] == nil)
        }
    }
}
