import Foundation
import Sluice
import SluiceTesting
import Testing

/// Invalidation after unsafe requests (cache-tests.fyi's "invalidation" group, RFC 9111 §4.4).
@Suite("Cache invalidation")
struct CacheInvalidationTests {
    @Test(arguments: [HTTPMethod.post, .put, .delete, .patch])
    func aSuccessfulUnsafeRequestInvalidatesItsURL(method: HTTPMethod) async throws {
        try await withCache { (h) async throws in
            h.script("/i", reply("one", ("Cache-Control", "max-age=600")))
            _ = try await h.send("/i")
            #expect(try await h.send("/i").source == .cache)
            _ = try await h.send("/i", method: method)
            #expect(try await h.send("/i").source == .network)
        }
    }

    @Test func locationAndContentLocationAreInvalidatedToo() async throws {
        try await withCache { (h) async throws in
            h.script("/a", reply("a", ("Cache-Control", "max-age=600")))
            h.script("/b", reply("b", ("Cache-Control", "max-age=600")))
            h.script("/c", reply("c", ("Cache-Control", "max-age=600")))
            h.script("/form", reply(status: 201, "", ("Location", "/a"), ("Content-Location", "b")))
            for path in ["/a", "/b", "/c"] { _ = try await h.send(path) }
            _ = try await h.send("/form", method: .post)
            #expect(try await h.send("/a").source == .network)
            #expect(try await h.send("/b").source == .network)
            #expect(try await h.send("/c").source == .cache, "an unrelated URL is kept")
        }
    }

    @Test func aFailedUnsafeRequestInvalidatesNothing() async throws {
        try await withCache { (h) async throws in
            h.script("/f", reply("one", ("Cache-Control", "max-age=600")))
            _ = try await h.send("/f")
            h.script("/f", reply(status: 500, "broken"))
            _ = try await h.send("/f", method: .post)
            #expect(try await h.send("/f").text == "one")
        }
    }

    @Test func aSafeMethodInvalidatesNothing() async throws {
        try await withCache { (h) async throws in
            h.script("/s", reply("one", ("Cache-Control", "max-age=600")))
            _ = try await h.send("/s")
            _ = try await h.send("/s", method: .options)
            #expect(try await h.send("/s").source == .cache)
        }
    }
}
