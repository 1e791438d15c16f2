import Foundation
import Sluice
import SluiceTesting
import Testing

/// `Vary` (cache-tests.fyi's "vary" group): one entry per variant.
@Suite("Cache Vary")
struct CacheVaryTests {
    @Test func eachVariantIsStoredApart() async throws {
        try await withCache { (h) async throws in
            h.script(
                "/v", reply("english", ("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")),
                reply("français", ("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")))
            #expect(try await h.send("/v", headers: ["Accept-Language": "en"]).text == "english")
            #expect(try await h.send("/v", headers: ["Accept-Language": "fr"]).text == "français")
            #expect(try await h.send("/v", headers: ["Accept-Language": "en"]).text == "english")
            #expect(try await h.send("/v", headers: ["Accept-Language": "fr"]).text == "français")
            #expect(h.sent("/v") == 2)
        }
    }

    @Test func anAbsentFieldIsAVariantOfItsOwn() async throws {
        try await withCache { (h) async throws in
            h.script(
                "/a", reply("plain", ("Cache-Control", "max-age=60"), ("Vary", "X-Mode")),
                reply("special", ("Cache-Control", "max-age=60"), ("Vary", "X-Mode")))
            #expect(try await h.send("/a").text == "plain")
            #expect(try await h.send("/a", headers: ["X-Mode": "1"]).text == "special")
            #expect(try await h.send("/a").text == "plain")
            #expect(h.sent("/a") == 2)
        }
    }

    @Test func namesAreCaseInsensitiveAndValuesTrimmed() async throws {
        try await withCache { (h) async throws in
            h.script("/c", reply("one", ("Cache-Control", "max-age=60"), ("Vary", " accept-LANGUAGE , X-Other")))
            _ = try await h.send("/c", headers: ["Accept-Language": "en"])
            #expect(try await h.send("/c", headers: ["accept-language": "  en "]).source == .cache)
        }
    }

    @Test func varyStarIsNeverStored() async throws {
        try await withCache { (h) async throws in
            h.script("/s", reply("one", ("Cache-Control", "max-age=60"), ("Vary", "*")))
            _ = try await h.send("/s")
            _ = try await h.send("/s")
            #expect(h.sent("/s") == 2)
        }
    }
}
