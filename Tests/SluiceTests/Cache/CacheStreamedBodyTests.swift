import Foundation
import Sluice
import SluiceTesting
import Testing

/// A streamed response is stored as its body is read, once the body ends well; a stored response
/// answers a streamed request.
@Suite("Cache and streamed bodies")
struct CacheStreamedBodyTests {
    /// The body of the scripted `path`, read through `Client.stream` to its end.
    private static func streamedBody(_ h: CacheHarness, _ path: String) async throws -> Data {
        let url = h.server.url(for: .scripted(path: path)).absoluteString
        return Data(try await h.client.stream(url).producer.collect().value.joined())
    }

    @Test func aStreamedBodyReadToItsEndIsStoredAndAnswersLaterRequests() async throws {
        try await withCache { (h) async throws in
            h.script("/s", reply("streamed", ("Cache-Control", "max-age=600")))
            let url = h.server.url(for: .scripted(path: "/s")).absoluteString
            #expect(try await Self.streamedBody(h, "/s") == Data("streamed".utf8))
            #expect(h.cache.byteCount > 0, "stored as it was read")
            let cached = try await h.send("/s")
            #expect(cached.source == .cache)
            #expect(cached.text == "streamed")
            let streamedAgain = try await h.client.stream(url).response().value
            #expect(streamedAgain.source == .cache)
            #expect(streamedAgain.text == "streamed")
            #expect(h.sent("/s") == 1)
        }
    }

    @Test func aBodyTheReaderLetsGoOfBeforeItsEndIsNotStored() async throws {
        try await withCache { (h) async throws in
            h.server.script(
                "/half",
                wire: .text("HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Length: 20\r\n\r\nfirst half"),
                .pause(.milliseconds(100)), .text("other half"))
            let url = h.server.url(for: .scripted(path: "/half")).absoluteString
            let first = try await h.client.stream(url).producer.take(first: 1).collect().value
            #expect(Data(first.joined()) == Data("first half".utf8))
            // Past the moment the server sent the rest: had it been read for the cache, it would
            // be stored by now.
            try await Task.sleep(for: .milliseconds(300))
            #expect(h.cache.byteCount == 0, "the reader let go before the end")
        }
    }

    /// A stale entry's revalidation answered with a new response whose streamed body then breaks
    /// off: the failure is the request's. Answering it with the stored entry (`stale-if-error`)
    /// sent a second response after the first.
    @Test func aStreamedBodyThatBreaksOffAfterItsHeadIsNotFollowedByAStoredOne() async throws {
        try await withCache { (h) async throws in
            h.script("/r", reply("old", ("Cache-Control", "max-age=1, stale-if-error=600")))
            _ = try await h.send("/r")
            h.advance(seconds: 30)
            h.server.script(
                "/r", wire: .text("HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\nfirst half"), .pause(.milliseconds(50)),
                .reset)
            let url = h.server.url(for: .scripted(path: "/r")).absoluteString
            do {
                let responses = try await h.client.stream(url).response().collect().value
                Issue.record("\(responses.count) responses and a success, for a body that broke off")
            } catch {
                #expect((error as? SluiceError)?.code == .connectionLost, "\(error)")
            }
            #expect(h.sent("/r") == 2)
        }
    }

    @Test func aBodyThatBreaksOffIsNotStored() async throws {
        try await withCache { (h) async throws in
            h.server.script(
                "/cut",
                wire: .text("HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Length: 100\r\n\r\nten bytes."),
                .close)
            let url = h.server.url(for: .scripted(path: "/cut")).absoluteString
            await #expect(throws: SluiceError.self) { _ = try await h.client.stream(url).producer.collect().value }
            #expect(h.cache.byteCount == 0, "a body cut short is never stored")
        }
    }

    @Test func aBodyLargerThanTheCacheIsNotStored() async throws {
        try await withCache(HTTPCache(memoryCapacity: 512)) { (h) async throws in
            let body = String(repeating: "x", count: 4_096)
            h.script("/big", reply(body, ("Cache-Control", "max-age=600")))
            #expect(try await Self.streamedBody(h, "/big").count == 4_096)
            #expect(h.cache.byteCount == 0)
            _ = try await h.send("/big")
            #expect(h.sent("/big") == 2)
        }
    }

    @Test func aStreamedResponseTheCacheMayNotStorePassesUntouched() async throws {
        try await withCache { (h) async throws in
            h.script("/private", reply("secret", ("Cache-Control", "no-store")))
            #expect(try await Self.streamedBody(h, "/private") == Data("secret".utf8))
            #expect(h.cache.byteCount == 0)
        }
    }
}
