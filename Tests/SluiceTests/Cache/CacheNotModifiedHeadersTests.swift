import Foundation
import Sluice
import SluiceTesting
import Testing

/// Headers on 304 (cache-tests.fyi's "update headers" group, RFC 9111 §3.2).
@Suite("Cache headers on 304")
struct CacheNotModifiedHeadersTests {
    @Test func a304UpdatesTheStoredHeaders() async throws {
        try await withCache { (h) async throws in
            h.script(
                "/u", reply("body", ("ETag", "\"u\""), ("X-Version", "1"), ("Cache-Control", "max-age=0")),
                reply(status: 304, "", ("ETag", "\"u\""), ("X-Version", "2"), ("Cache-Control", "max-age=600")))
            _ = try await h.send("/u")
            let validated = try await h.send("/u")
            #expect(validated.headers["X-Version"] == "2")
            #expect(validated.text == "body")
            let cached = try await h.send("/u")
            #expect(cached.source == .cache, "the 304's max-age made the stored response fresh")
            #expect(cached.headers["X-Version"] == "2")
            #expect(h.sent("/u") == 2)
        }
    }

    @Test func a304DoesNotReplaceContentLength() async throws {
        try await withCache { (h) async throws in
            h.script("/l", reply("twelve bytes", ("ETag", "\"l\"")), reply(status: 304, "", ("Content-Length", "0")))
            _ = try await h.send("/l")
            let validated = try await h.send("/l")
            #expect(validated.headers["Content-Length"] == "12")
            #expect(validated.text == "twelve bytes")
        }
    }

    @Test func a304WithANewETagIsUsedForTheNextValidation() async throws {
        try await withCache { (h) async throws in
            h.script("/e", reply("body", ("ETag", "\"1\"")), reply(status: 304, "", ("ETag", "\"2\"")))
            _ = try await h.send("/e")
            _ = try await h.send("/e")
            _ = try await h.send("/e")
            #expect(h.lastSent("/e")?.headers["If-None-Match"] == "\"2\"")
        }
    }

    @Test func a304KeepsTheFieldsItDoesNotMention() async throws {
        try await withCache { (h) async throws in
            h.script("/k", reply("body", ("ETag", "\"k\""), ("X-Kept", "yes")), reply(status: 304, "", ("X-New", "1")))
            _ = try await h.send("/k")
            let validated = try await h.send("/k")
            #expect(validated.headers["X-Kept"] == "yes")
            #expect(validated.headers["X-New"] == "1")
        }
    }
}

extension CacheNotModifiedHeadersTests {
    /// A 304 without `Date` or `Age` makes the response as young as the validation: the stored
    /// fields of the old response no longer count.
    @Test func a304WithoutADateRestartsTheAge() async throws {
        try await withCache { (h) async throws in
            let old = httpDate(h.clock.currentDate)
            h.script(
                "/d", reply("body", ("Date", old), ("Age", "5"), ("Cache-Control", "max-age=60"), ("ETag", "\"d\"")),
                reply(status: 304))
            _ = try await h.send("/d")
            h.advance(seconds: 120)
            #expect(try await h.send("/d").source == .revalidated)
            h.advance(seconds: 30)
            let cached = try await h.send("/d")
            #expect(cached.source == .cache)
            #expect(cached.headers["Age"] == "30")
        }
    }
}
