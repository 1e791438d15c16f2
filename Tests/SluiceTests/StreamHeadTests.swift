import Foundation
import Sluice
import SluiceTesting
import Synchronization
import Testing

/// A stream's head before its first chunk (`open()`), and validation at the head: a rejected
/// response is an error with its body, never ordinary chunks.
@Suite("Streams: the head first, validated")
struct StreamHeadTests {
    private func client(_ server: MockServer, _ transport: CurlTransport) throws -> Client {
        try Client(baseURL: server.baseURL.absoluteString, transport: transport)
    }

    @Test func openReturnsTheHeadBeforeTheBodyArrives() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            // A body that never ends: open() returns with the head all the same.
            server.script(
                "/endless",
                wire: .text(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n3\r\none\r\n"),
                .stall)
            let (head, body) = try await client.stream("endless").validate().open()
            #expect(head.status == 200)
            #expect(head.headers["Content-Type"] == "text/plain")
            var chunks = body.makeAsyncIterator()
            #expect(try await chunks.next() == Data("one".utf8))

            let url = server.url(for: .drip(bytes: 1000, chunks: 5, interval: .milliseconds(100))).absoluteString
            let (_, whole) = try await client.stream(url).validate().open()
            var total = 0
            for try await chunk in whole { total += chunk.count }
            #expect(total == 1000)
        }
    }

    @Test func aRejectedStatusThrowsWithItsBodyInsteadOfStreamingIt() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            server.script("/missing", .json(#"{"error":"no such export"}"#, status: 404))
            let opened = await expectFailure(.unacceptableStatusCode) {
                _ = try await client.stream("missing").validate().open()
                return Response(status: 0, headers: [:], request: try client.makeRequest(.get, "x"))
            }
            #expect(opened?.response?.status == 404)
            #expect(opened?.responseBodyText == #"{"error":"no such export"}"#)

            // The producer delivers no chunk of it; the async sequence throws before its first.
            let chunks = Mutex<[Data]>([])
            let failure = Mutex<SluiceError?>(nil)
            _ = try client.stream("missing").validate().producer.start { event in
                switch event {
                case .value(let chunk): chunks.withLock { $0.append(chunk) }
                case .failed(let error): failure.withLock { $0 = error }
                default: break
                }
            }
            try await eventually("the producer fails") { failure.withLock { $0 } != nil }
            #expect(chunks.withLock { $0 }.isEmpty)
            #expect(failure.withLock { $0 }?.response?.body == Data(#"{"error":"no such export"}"#.utf8))
            do {
                for try await _ in try client.stream("missing").validate().values {
                    Issue.record("no chunk of a rejected response")
                }
                Issue.record("the sequence throws")
            } catch {
                #expect((error as? SluiceError)?.code == .unacceptableStatusCode)
            }
        }
    }

    @Test func anUnvalidatedStreamDeliversAnyStatusAsChunks() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            server.script("/gone", .text("bye", status: 410))
            let (head, body) = try await client.stream("gone").open()
            #expect(head.status == 410)
            var text = Data()
            for try await chunk in body { text.append(chunk) }
            #expect(text == Data("bye".utf8))
        }
    }

    @Test func contentTypeValidationAndReadingTheBodyTwice() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            server.script("/feed", .text("data: hi\n\n"))
            await expectFailure(.unacceptableContentType) {
                _ = try await client.stream("feed").validate(contentType: ["text/event-stream"]).open()
                return Response(status: 0, headers: [:], request: try client.makeRequest(.get, "x"))
            }
            let (_, body) = try await client.stream("feed").validate(statusCode: [200]).open()
            for try await _ in body {}
            do {
                for try await _ in body { Issue.record("nothing the second time") }
                Issue.record("a second read throws")
            } catch {
                #expect((error as? SluiceError)?.code == .bodyAlreadyRead)
            }
        }
    }
}
