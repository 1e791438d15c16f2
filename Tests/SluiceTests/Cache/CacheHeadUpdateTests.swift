import Foundation
import Sluice
import SluiceTesting
import Testing

/// A HEAD's 200 updates or retires the stored GET responses it describes (RFC 9111 §4.3.5;
/// cache-tests.fyi's "HEAD" group). Each path answers a GET first, then the HEAD, then a GET again.
@Suite("Cache updates from HEAD")
struct CacheHeadUpdateTests {
    @Test func aHeadWithTheSameETagUpdatesAndFreshensTheStoredGet() async throws {
        try await withCache { (h) async throws in
            h.script(
                "/same",
                reply("body", ("ETag", "\"a\""), ("X-Version", "1"), ("Cache-Control", "max-age=0")),
                reply("body", ("ETag", "\"a\""), ("X-Version", "2"), ("Cache-Control", "max-age=600")))
            _ = try await h.send("/same")
            _ = try await h.send("/same", method: .head)
            let cached = try await h.send("/same")
            #expect(cached.source == .cache, "the HEAD's max-age made the stored GET fresh")
            #expect(cached.headers["X-Version"] == "2")
            #expect(cached.text == "body")
            #expect(h.sent("/same") == 2)
        }
    }

    @Test func aHeadWithTheSameLastModifiedUpdatesTheStoredGet() async throws {
        try await withCache { (h) async throws in
            let modified = httpDate(Date(timeIntervalSince1970: 1_700_000_000))
            h.script(
                "/dated",
                reply("body", ("Last-Modified", modified), ("Cache-Control", "max-age=0")),
                reply("body", ("Last-Modified", modified), ("Cache-Control", "max-age=600"), ("X-New", "yes")))
            _ = try await h.send("/dated")
            _ = try await h.send("/dated", method: .head)
            let cached = try await h.send("/dated")
            #expect(cached.source == .cache)
            #expect(cached.headers["X-New"] == "yes")
            #expect(h.sent("/dated") == 2)
        }
    }

    @Test(arguments: [
        ("another ETag", reply("body", ("ETag", "\"b\""), ("Cache-Control", "max-age=600"))),
        ("another length", reply("longer body", ("ETag", "\"a\""), ("Cache-Control", "max-age=600"))),
        ("no validator", reply("body", ("Cache-Control", "max-age=600"))),
    ])
    func aHeadThatShowsAChangeRetiresTheFreshStoredGet(_ change: String, _ head: ScriptedResponse) async throws {
        try await withCache { (h) async throws in
            h.script(
                "/changed", reply("body", ("ETag", "\"a\""), ("Cache-Control", "max-age=600")), head,
                reply("new body", ("ETag", "\"b\""), ("Cache-Control", "max-age=600")))
            _ = try await h.send("/changed")
            _ = try await h.send("/changed", method: .head)
            let next = try await h.send("/changed")
            #expect(next.source == .network, "\(change): the stored GET is stale")
            #expect(next.text == "new body")
            #expect(h.sent("/changed") == 3)
        }
    }

    @Test func aHeadThatFailsLeavesTheStoredGetAlone() async throws {
        try await withCache { (h) async throws in
            h.script(
                "/gone", reply("body", ("ETag", "\"a\""), ("Cache-Control", "max-age=600")),
                reply(status: 404, "", ("ETag", "\"b\"")))
            _ = try await h.send("/gone")
            _ = try await h.send("/gone", method: .head)
            let cached = try await h.send("/gone")
            #expect(cached.source == .cache)
            #expect(cached.text == "body")
            #expect(h.sent("/gone") == 2)
        }
    }
}
