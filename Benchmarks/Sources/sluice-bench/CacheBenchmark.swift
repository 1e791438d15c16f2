import BenchChild
import Dispatch
import Foundation
import Sluice

/// What a cache hit costs against a network round trip: sequential GETs of one small file from a
/// local nginx, through a client without a cache and through one whose memory cache holds the
/// response, interleaved by round. The file's modification time is set a day back, so its
/// response is fresh by RFC 9111's heuristic (10% of its age since `Last-Modified`) without any
/// change to nginx's configuration.
enum CacheBenchmark: Suite {
    static let name = "cache"
    static let summary = "cached GET: ns per sequential request, a memory-cache hit vs a local nginx round trip"

    static let path = "/cached.txt"

    static func run(_ options: Options) -> SuiteReport {
        do {
            let server = try LocalNginx.start(
                bigFileBytes: 1 << 20, pinWorker: options.pinCPUs,
                files: [path: Data(NginxRoutes.smallPayload.utf8)])
            defer { server.stop() }
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -86_400)], ofItemAtPath: server.file(path))
            return try measure(options, url: server.url(path))
        } catch {
            note("cache: \(error)")
            exit(1)
        }
    }

    private static func measure(_ options: Options, url: String) throws -> SuiteReport {
        let requests = options.isRequestsGiven ? options.requests : 2_000
        let rounds = max(3, options.rounds)
        let network = try Sluice.Client()
        var configuration = Sluice.Client.Configuration()
        configuration.cache = HTTPCache(memoryCapacity: 1 << 20)
        let cached = try Sluice.Client(configuration: configuration)
        let failures = Lock(0)
        let sources = Lock([ResponseSource: Int]())

        /// Sends one GET and waits for its response: the latency a caller sees.
        func roundTrip(_ client: Sluice.Client) {
            let done = DispatchSemaphore(value: 0)
            _ = client.get(url).startWithResult { result in
                switch result {
                case .success(let response):
                    sources.withLock { $0[response.source, default: 0] += 1 }
                    if response.status != 200 || response.body.count != NginxRoutes.smallPayload.utf8.count {
                        failures.withLock { $0 += 1 }
                    }
                case .failure: failures.withLock { $0 += 1 }
                }
                done.signal()
            }
            done.wait()
        }

        func perRequest(_ client: Sluice.Client) -> Double {
            let (nanoseconds, _) = Measure.time {
                for _ in 0..<requests { roundTrip(client) }
            }
            return Double(nanoseconds) / Double(requests)
        }

        _ = perRequest(network)  // warm-up: connections made, the cache filled
        _ = perRequest(cached)
        sources.withLock { $0 = [:] }
        var networkSamples: [Double] = []
        var hitSamples: [Double] = []
        for round in 0..<rounds {
            note("cache: round \(round + 1)/\(rounds)")
            networkSamples.append(perRequest(network))
            hitSamples.append(perRequest(cached))
        }
        let networkNs = Measure.median(networkSamples)
        let hitNs = Measure.median(hitSamples)
        let ratio = hitNs / networkNs
        let counted = sources.withLock { $0 }
        let allHits = counted[.cache] == requests * rounds
        let failed = failures.withLock { $0 }
        let lines = [
            "Cached GET — \(requests) sequential GETs of a \(NginxRoutes.smallPayload.utf8.count)-byte file per round,",
            "\(rounds) rounds interleaved, medians:",
            "",
            "| request | ns per request | ÷ network |",
            "| --- | ---: | ---: |",
            String(format: "| network round trip (no cache) | %.0f | 1.00× |", networkNs),
            String(format: "| memory-cache hit | %.0f | %.3f× |", hitNs, ratio),
            "",
            String(format: "A hit costs %.1f%% of a round trip (%.0f× faster).", ratio * 100, 1 / ratio),
            "Every cached request was a hit: \(allHits ? "yes" : "NO, \(counted)").",
            "Every request succeeded: \(failed == 0 ? "yes" : "NO, \(failed) failed").",
        ]
        let json = JSON.object([
            ("network_ns_per_request", .number(networkNs)), ("hit_ns_per_request", .number(hitNs)),
            ("hit_to_network_ratio", .number(ratio)), ("all_hits", .bool(allHits)),
            ("all_succeeded", .bool(failed == 0)),
        ])
        return SuiteReport(text: lines.joined(separator: "\n"), json: json, isConsistent: failed == 0 && allHits)
    }
}
