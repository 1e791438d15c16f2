import Foundation
import Sluice
import SluiceTesting
import Testing

/// Per-request cache policies, and where a response came from in events and metrics.
@Suite("Cache policies and reporting")
struct CachePolicyTests {
    @Test func reloadIgnoresTheStoredResponseAndStoresTheNewOne() async throws {
        try await withCache { (h) async throws in
            h.script(
                "/r", reply("one", ("Cache-Control", "max-age=600")), reply("two", ("Cache-Control", "max-age=600")))
            _ = try await h.send("/r")
            #expect(try await h.send("/r", policy: .reload).text == "two")
            #expect(try await h.send("/r").text == "two")
            #expect(h.sent("/r") == 2)
        }
    }

    @Test func returnCachedElseLoadServesAStaleResponse() async throws {
        try await withCache { (h) async throws in
            h.script("/s", reply("old", ("Cache-Control", "max-age=1")), reply("new"))
            _ = try await h.send("/s")
            h.advance(seconds: 3600)
            #expect(try await h.send("/s", policy: .returnCachedElseLoad).text == "old")
            #expect(try await h.send("/l", policy: .returnCachedElseLoad).source == .network)
        }
    }

    @Test func onlyIfCachedFailsWithATypedErrorAndSendsNothing() async throws {
        try await withCache { (h) async throws in
            h.script("/o", reply("one", ("Cache-Control", "max-age=1")))
            await #expect {
                _ = try await h.send("/o", policy: .onlyIfCached)
            } throws: { error in
                (error as? SluiceError)?.code == .notCached
            }
            #expect(h.sent("/o") == 0)
            _ = try await h.send("/o")
            h.advance(seconds: 3600)
            #expect(try await h.send("/o", policy: .onlyIfCached).text == "one")
            #expect(h.sent("/o") == 1)
        }
    }

    /// What the cache never answers (another method, a request with its own validators or
    /// range) is not sent either when it may only be answered from the cache.
    @Test func onlyIfCachedSendsNothingTheCacheDoesNotAnswer() async throws {
        try await withCache { (h) async throws in
            h.script("/n", reply("one", ("Cache-Control", "max-age=600")))
            _ = try await h.send("/n")
            let asks: [(HTTPMethod, HTTPHeaders)] = [
                (.post, [:]), (.delete, [:]), (.get, ["If-None-Match": "\"x\""]), (.get, ["Range": "bytes=0-1"]),
            ]
            for (method, headers) in asks {
                await #expect {
                    _ = try await h.send("/n", method: method, headers: headers, policy: .onlyIfCached)
                } throws: { error in
                    (error as? SluiceError)?.code == .notCached
                }
            }
            #expect(h.sent("/n") == 1)
        }
    }

    @Test func anOnlyIfCachedRequestHeaderGetsA504() async throws {
        try await withCache { (h) async throws in
            let response = try await h.send("/none", headers: ["Cache-Control": "only-if-cached"])
            #expect(response.status == 504)
            #expect(h.sent("/none") == 0)
        }
    }

    @Test func eventsAndMetricsSayWhereResponsesCameFrom() async throws {
        try await withCache { (h) async throws in
            h.script("/m", reply("body", ("Cache-Control", "max-age=10"), ("ETag", "\"m\"")), reply(status: 304))
            _ = try await h.send("/m")
            _ = try await h.send("/m")
            h.advance(seconds: 20)
            _ = try await h.send("/m")
            let outcomes = h.log.events.withLock { $0 }.compactMap { event -> CacheOutcome? in
                if case .cache(let outcome) = event.kind { return outcome } else { return nil }
            }
            #expect(outcomes == [.miss, .hit, .revalidated])
            let host = "127.0.0.1:\(h.server.port)"
            try await eventually("the metrics count the cache") {
                let metrics = h.client.metrics.value.hosts[host]
                return metrics?.cacheHits == 1 && metrics?.cacheMisses == 1 && metrics?.cacheRevalidations == 1
            }
        }
    }

    @Test func aClientWithoutACacheHasNoCacheInterceptor() throws {
        let client = try Client(baseURL: "http://127.0.0.1:1/")
        #expect(!client.interceptors.contains { $0 is CacheInterceptor })
        var configuration = Client.Configuration()
        configuration.cache = HTTPCache(memoryCapacity: 1 << 10)
        let cached = try Client(baseURL: "http://127.0.0.1:1/", configuration: configuration)
        #expect(cached.interceptors.last is CacheInterceptor, "the cache sits last, where each hop is sent")
    }
}
