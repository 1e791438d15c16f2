import Foundation
import Sluice
import SluiceTesting
import Testing

/// RFC 5861's `stale-while-revalidate` and `stale-if-error`, and a request's `max-stale`.
@Suite("Cache stale responses")
struct CacheStaleTests {
    @Test func staleWhileRevalidateAnswersAtOnceAndValidatesInTheBackground() async throws {
        try await withCache { (h) async throws in
            h.script(
                "/w", reply("old", ("Cache-Control", "max-age=1, stale-while-revalidate=60"), ("ETag", "\"w\"")),
                reply("new", ("Cache-Control", "max-age=600"), ("ETag", "\"w2\"")))
            _ = try await h.send("/w")
            h.advance(seconds: 10)
            let stale = try await h.send("/w")
            #expect(stale.text == "old")
            #expect(stale.source == .cache)
            try await eventually("the background validation arrives") { h.sent("/w") == 2 }
            #expect(h.lastSent("/w")?.headers["If-None-Match"] == "\"w\"")
            h.cache.flush()
            try await eventually("the validated response is stored") {
                h.cache.byteCount > 0 && h.server.requests(to: "/w").count == 2
            }
            var fresh = try await h.send("/w")
            for _ in 0..<200 where fresh.text != "new" {
                try await Task.sleep(for: .milliseconds(5))
                fresh = try await h.send("/w")
            }
            #expect(fresh.text == "new")
            #expect(fresh.source == .cache)
        }
    }

    @Test func pastTheWindowTheRequestWaitsForTheValidation() async throws {
        try await withCache { (h) async throws in
            h.script(
                "/p", reply("old", ("Cache-Control", "max-age=1, stale-while-revalidate=5"), ("ETag", "\"p\"")),
                reply("new"))
            _ = try await h.send("/p")
            h.advance(seconds: 30)
            #expect(try await h.send("/p").text == "new")
        }
    }

    @Test func staleIfErrorAnswersWhenTheServerFails() async throws {
        try await withCache { (h) async throws in
            h.script(
                "/e", reply("old", ("Cache-Control", "max-age=1, stale-if-error=60")), reply(status: 500, "broken"))
            _ = try await h.send("/e")
            h.advance(seconds: 30)
            let rescued = try await h.send("/e")
            #expect(rescued.text == "old")
            #expect(rescued.source == .cache)
            h.advance(seconds: 60)
            #expect(try await h.send("/e").status == 500, "past the window the error comes through")
        }
    }

    @Test func staleIfErrorAnswersWhenTheConnectionFails() async throws {
        try await withCache { (h) async throws in
            h.script("/c", reply("old", ("Cache-Control", "max-age=1, stale-if-error=60")))
            _ = try await h.send("/c")
            h.server.script("/c", wire: .close)
            h.advance(seconds: 30)
            let rescued = try await h.send("/c")
            #expect(rescued.text == "old")
        }
    }

    @Test func aRequestsMaxStaleAcceptsAStaleResponse() async throws {
        try await withCache { (h) async throws in
            h.script("/m", reply("old", ("Cache-Control", "max-age=1")), reply("new"))
            _ = try await h.send("/m")
            h.advance(seconds: 30)
            #expect(try await h.send("/m", headers: ["Cache-Control": "max-stale=60"]).text == "old")
            #expect(try await h.send("/m", headers: ["Cache-Control": "max-stale=10"]).text == "new")
        }
    }
}
