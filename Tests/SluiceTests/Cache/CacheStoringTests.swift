import Foundation
import Sluice
import SluiceTesting
import Testing

/// What is stored (cache-tests.fyi's "storing" and "cache-control" groups, for a private cache).
@Suite("Cache storing")
struct CacheStoringTests {
    @Test func noStoreIsNotStored() async throws {
        try await withCache { (h) async throws in
            h.script("/n", reply("one", ("Cache-Control", "max-age=600, no-store")))
            _ = try await h.send("/n")
            #expect(try await h.send("/n").source == .network)
            #expect(h.sent("/n") == 2)
        }
    }

    @Test func aRequestsNoStoreKeepsTheResponseOut() async throws {
        try await withCache { (h) async throws in
            h.script("/r", reply("one", ("Cache-Control", "max-age=600")))
            _ = try await h.send("/r", headers: ["Cache-Control": "no-store"])
            #expect(try await h.send("/r").source == .network)
        }
    }

    @Test func privateIsStoredByAPrivateCache() async throws {
        try await withCache { (h) async throws in
            h.script("/p", reply("mine", ("Cache-Control", "private, max-age=600")))
            _ = try await h.send("/p")
            #expect(try await h.send("/p").source == .cache)
        }
    }

    @Test func aResponseToARequestWithCredentialsIsStoredOnlyWhenItSaysSo() async throws {
        try await withCache { (h) async throws in
            h.script("/secret", reply("s", ("Cache-Control", "max-age=600")))
            h.script("/open", reply("o", ("Cache-Control", "public, max-age=600")))
            let credentials: HTTPHeaders = ["Authorization": "Bearer t"]
            _ = try await h.send("/secret", headers: credentials)
            #expect(try await h.send("/secret", headers: credentials).source == .network)
            _ = try await h.send("/open", headers: credentials)
            #expect(try await h.send("/open", headers: credentials).source == .cache)
        }
    }

    @Test func onlyGetAndHeadAreStored() async throws {
        try await withCache { (h) async throws in
            h.script("/post", reply("created", ("Cache-Control", "max-age=600")))
            _ = try await h.send("/post", method: .post)
            _ = try await h.send("/post", method: .post)
            #expect(h.sent("/post") == 2)
        }
    }

    @Test func aHeadResponseAnswersALaterHead() async throws {
        try await withCache { (h) async throws in
            h.script("/h", reply("", ("Cache-Control", "max-age=600"), ("X-Kind", "head")))
            _ = try await h.send("/h", method: .head)
            let cached = try await h.send("/h", method: .head)
            #expect(cached.source == .cache)
            #expect(cached.headers["X-Kind"] == "head")
            #expect(cached.body.isEmpty)
        }
    }

    @Test func aNotFoundWithMaxAgeIsStored() async throws {
        try await withCache { (h) async throws in
            h.script("/missing", reply(status: 404, "gone", ("Cache-Control", "max-age=600")))
            _ = try await h.send("/missing")
            let cached = try await h.send("/missing")
            #expect(cached.status == 404)
            #expect(cached.source == .cache)
        }
    }

    @Test func aResponseThatCouldNeverBeReusedIsNotStored() async throws {
        try await withCache { (h) async throws in
            h.script("/plain", reply("plain"))
            _ = try await h.send("/plain")
            _ = try await h.send("/plain")
            #expect(h.sent("/plain") == 2)
            #expect(h.cache.byteCount == 0)
        }
    }

    @Test func aDownloadToAFileIsNotCached() async throws {
        try await withCache { (h) async throws in
            h.script("/file", reply("file body", ("Cache-Control", "max-age=600")))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-cache-\(UUID()).bin")
            defer { try? FileManager.default.removeItem(at: file) }
            for _ in 0..<2 {
                var request = try h.client.makeRequest(.get, h.server.url(for: .scripted(path: "/file")).absoluteString)
                request.options.destination = .file(file)
                let response = try await h.client.send(request).value
                #expect(response.fileURL == file)
                #expect(try Data(contentsOf: file) == Data("file body".utf8))
            }
            #expect(h.sent("/file") == 2)
        }
    }
}
