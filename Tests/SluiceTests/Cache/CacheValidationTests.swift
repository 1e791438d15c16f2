import Foundation
import Sluice
import SluiceTesting
import Testing

/// Validation (cache-tests.fyi's "conditional requests" and "revalidation" groups).
@Suite("Cache validation")
struct CacheValidationTests {
    @Test func anETagIsSentAsIfNoneMatchAndA304ServesTheStoredBody() async throws {
        try await withCache { (h) async throws in
            h.script("/v", reply("body", ("ETag", "\"a\"")), reply(status: 304, "", ("ETag", "\"a\"")))
            _ = try await h.send("/v")
            let second = try await h.send("/v")
            #expect(h.lastSent("/v")?.headers["If-None-Match"] == "\"a\"")
            #expect(second.status == 200)
            #expect(second.text == "body")
            #expect(second.source == .revalidated)
        }
    }

    @Test func lastModifiedIsSentAsIfModifiedSince() async throws {
        try await withCache { (h) async throws in
            let modified = httpDate(h.clock.currentDate.addingTimeInterval(-10))
            h.script(
                "/l", reply("body", ("Last-Modified", modified), ("Cache-Control", "no-cache")), reply(status: 304))
            _ = try await h.send("/l")
            #expect(try await h.send("/l").text == "body")
            #expect(h.lastSent("/l")?.headers["If-Modified-Since"] == modified)
        }
    }

    @Test func noCacheValidatesEvenAFreshResponse() async throws {
        try await withCache { (h) async throws in
            h.script(
                "/n", reply("body", ("Cache-Control", "max-age=3600, no-cache"), ("ETag", "\"n\"")), reply(status: 304))
            _ = try await h.send("/n")
            #expect(try await h.send("/n").source == .revalidated)
            #expect(h.sent("/n") == 2)
        }
    }

    @Test(arguments: [("Cache-Control", "no-cache"), ("Cache-Control", "max-age=0"), ("Pragma", "no-cache")])
    func aRequestCanAskForValidation(field: (String, String)) async throws {
        try await withCache { (h) async throws in
            h.script("/r", reply("body", ("Cache-Control", "max-age=3600"), ("ETag", "\"r\"")), reply(status: 304))
            _ = try await h.send("/r")
            // One second old: `max-age=0` refuses any age above zero (RFC 9111 §5.2.1.1).
            h.advance(seconds: 1)
            #expect(try await h.send("/r", headers: HTTPHeaders([field])).source == .revalidated)
            #expect(h.lastSent("/r")?.headers["If-None-Match"] == "\"r\"")
        }
    }

    @Test func mustRevalidateNeverServesStale() async throws {
        try await withCache { (h) async throws in
            h.script(
                "/m",
                reply("body", ("Cache-Control", "max-age=1, must-revalidate, stale-if-error=600"), ("ETag", "\"m\"")),
                reply(status: 503, "down"))
            _ = try await h.send("/m")
            h.advance(seconds: 10)
            let failed = try await h.send("/m")
            #expect(failed.status == 503, "must-revalidate wins over stale-if-error")
        }
    }

    @Test func a200ToAConditionalRequestReplacesTheEntry() async throws {
        try await withCache { (h) async throws in
            h.script("/c", reply("old", ("ETag", "\"1\"")), reply("new", ("ETag", "\"2\"")), reply(status: 304))
            _ = try await h.send("/c")
            let replaced = try await h.send("/c")
            #expect(replaced.text == "new")
            #expect(replaced.source == .network)
            let validated = try await h.send("/c")
            #expect(h.lastSent("/c")?.headers["If-None-Match"] == "\"2\"")
            #expect(validated.text == "new")
        }
    }

    @Test func aRequestWithItsOwnValidatorsPassesByTheCache() async throws {
        try await withCache { (h) async throws in
            h.script("/o", reply("body", ("Cache-Control", "max-age=3600"), ("ETag", "\"o\"")), reply(status: 304))
            _ = try await h.send("/o")
            let answer = try await h.send("/o", headers: ["If-None-Match": "\"mine\""])
            #expect(answer.status == 304, "the caller's own conditional request gets the server's answer")
            #expect(h.lastSent("/o")?.headers["If-None-Match"] == "\"mine\"")
        }
    }
}
