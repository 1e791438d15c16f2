import Foundation
import Sluice
import SluiceTesting
import Testing

/// Freshness (cache-tests.fyi's "freshness" groups): `max-age`, `Expires`, `Age`, `Date` and the
/// heuristic lifetime, on a clock the tests move.
@Suite("Cache freshness")
struct CacheFreshnessTests {
    @Test func maxAgeAnswersFromTheCacheUntilItExpires() async throws {
        try await withCache { (h) async throws in
            h.script("/f", reply("one", ("Cache-Control", "max-age=60")), reply("two", ("Cache-Control", "max-age=60")))
            let first = try await h.send("/f")
            #expect(first.text == "one")
            #expect(first.source == .network)
            h.advance(seconds: 30)
            let second = try await h.send("/f")
            #expect(second.text == "one")
            #expect(second.source == .cache)
            #expect(second.headers["Age"] == "30", "a stored response is served with its current age")
            #expect(h.sent("/f") == 1)
            h.advance(seconds: 31)
            let third = try await h.send("/f")
            #expect(third.text == "two")
            #expect(h.sent("/f") == 2)
        }
    }

    @Test func expiresGivesFreshnessFromTheDate() async throws {
        try await withCache { (h) async throws in
            let now = h.clock.currentDate
            h.script(
                "/e",
                reply("one", ("Date", httpDate(now)), ("Expires", httpDate(now.addingTimeInterval(100)))),
                reply("two"))
            _ = try await h.send("/e")
            h.advance(seconds: 90)
            #expect(try await h.send("/e").source == .cache)
            h.advance(seconds: 20)
            #expect(try await h.send("/e").text == "two")
        }
    }

    @Test func maxAgeWinsOverExpires() async throws {
        try await withCache { (h) async throws in
            let past = httpDate(h.clock.currentDate.addingTimeInterval(-3600))
            h.script("/m", reply("one", ("Cache-Control", "max-age=100"), ("Expires", past)), reply("two"))
            _ = try await h.send("/m")
            h.advance(seconds: 50)
            #expect(try await h.send("/m").text == "one")
        }
    }

    @Test(arguments: ["0", "-1", "not a date"])
    func anInvalidExpiresIsAlreadyStale(expires: String) async throws {
        try await withCache { (h) async throws in
            h.script("/x", reply("one", ("Expires", expires)), reply("two"))
            _ = try await h.send("/x")
            #expect(try await h.send("/x").text == "two")
            #expect(h.sent("/x") == 2)
        }
    }

    @Test func theAgeHeaderCountsTowardsTheAge() async throws {
        try await withCache { (h) async throws in
            h.script("/a", reply("one", ("Cache-Control", "max-age=60"), ("Age", "50")), reply("two"))
            _ = try await h.send("/a")
            h.advance(seconds: 5)
            let cached = try await h.send("/a")
            #expect(cached.source == .cache)
            #expect(cached.headers["Age"] == "55")
            h.advance(seconds: 10)
            #expect(try await h.send("/a").text == "two")
        }
    }

    @Test func aDateInThePastCountsAsApparentAge() async throws {
        try await withCache { (h) async throws in
            let date = httpDate(h.clock.currentDate.addingTimeInterval(-50))
            h.script("/d", reply("one", ("Cache-Control", "max-age=60"), ("Date", date)), reply("two"))
            _ = try await h.send("/d")
            h.advance(seconds: 15)
            #expect(try await h.send("/d").text == "two")
        }
    }

    @Test func heuristicFreshnessIsATenthOfTheTimeSinceLastModified() async throws {
        try await withCache { (h) async throws in
            let now = h.clock.currentDate
            let modified = httpDate(now.addingTimeInterval(-1000))
            h.script(
                "/h", reply("one", ("Date", httpDate(now)), ("Last-Modified", modified)), reply(status: 304))
            _ = try await h.send("/h")
            h.advance(seconds: 90)
            #expect(try await h.send("/h").source == .cache)
            h.advance(seconds: 20)
            let validated = try await h.send("/h")
            #expect(validated.source == .revalidated)
            #expect(h.lastSent("/h")?.headers["If-Modified-Since"] == modified)
        }
    }

    @Test func noHeuristicFreshnessForAStatusThatIsNotHeuristicallyCacheable() async throws {
        try await withCache { (h) async throws in
            let modified = httpDate(h.clock.currentDate.addingTimeInterval(-1000))
            h.script("/c", reply(status: 201, "made", ("Last-Modified", modified)))
            _ = try await h.send("/c")
            _ = try await h.send("/c")
            #expect(h.sent("/c") == 2)
            #expect(h.lastSent("/c")?.headers["If-Modified-Since"] == nil, "a 201 is not stored")
        }
    }
}
