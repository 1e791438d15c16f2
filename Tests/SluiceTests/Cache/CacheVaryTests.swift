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

    /// The jar's cookies go out without being in the request's headers: a response that varies
    /// on cookies is neither stored for such a request nor used to answer one. (Served from the
    /// cache, `GET /me` showed the user who was signed in before.)
    @Test func aResponseThatVariesOnTheJarsCookiesIsNotStored() async throws {
        try await withCache { (h) async throws in
            h.script(
                "/me", reply("alice", ("Cache-Control", "private, max-age=600"), ("Vary", "Cookie")),
                reply("bob", ("Cache-Control", "private, max-age=600"), ("Vary", "Cookie")))
            #expect(try await h.send("/me").text == "alice")
            #expect(try await h.send("/me").text == "bob")
            #expect(h.sent("/me") == 2)
        }
    }

    /// "decoded body", gzip-compressed.
    static let gzipped = Data([
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff, 0x4b, 0x49, 0x4d, 0xce, 0x4f, 0x49, 0x4d, 0x51,
        0x48, 0xca, 0x4f, 0xa9, 0x04, 0x00, 0x81, 0x21, 0x6f, 0xed, 0x0c, 0x00, 0x00, 0x00,
    ])

    /// A coded body is stored as its request had it, decoded or not: a request that decodes
    /// nothing is not answered with a body another request had decoded, under a header that
    /// still says gzip, nor the other way round.
    @Test func aCodedBodyAnswersOnlyRequestsThatDecodeAsItsOwnDid() async throws {
        try await withCache { (h) async throws in
            let coded = ScriptedResponse(
                status: 200, headers: ["Cache-Control": "max-age=600", "Content-Encoding": "gzip"], body: Self.gzipped)
            h.script("/z", coded)
            func send(decompress: Bool) async throws -> Response {
                var request = try h.client.makeRequest(.get, h.server.url(for: .scripted(path: "/z")).absoluteString)
                request.options.decompress = decompress
                return try await h.client.send(request).value
            }
            #expect(try await send(decompress: true).text == "decoded body")
            let raw = try await send(decompress: false)
            #expect(raw.body == Self.gzipped)
            #expect(raw.source == .network)
            #expect(try await send(decompress: true).source == .cache)
            #expect(try await send(decompress: false).body == Self.gzipped)
            #expect(h.sent("/z") == 2)
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
