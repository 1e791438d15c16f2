import BenchChild
import Foundation
import Sluice

/// What lifecycle events cost: the same requests through a client nobody observes, and through one
/// whose `events` signal has an observer, on a transport that answers at once from memory (so the
/// figures are Sluice's own work, with no network and no thread hop).
enum EventsBenchmark: Suite {
    static let name = "events"
    static let summary = "lifecycle events: ns per request through a client, unobserved vs observed"

    /// Answers every request at once with the same small response.
    struct InstantTransport: Transport {
        func transfer(_ request: PreparedRequest) -> SignalProducer<TransferEvent, SluiceError> {
            SignalProducer(values: [
                .head(ResponseHead(status: 200, headers: ["Content-Length": "5"], httpVersion: .http1_1)),
                .body(Data("hello".utf8)),
                .downloadProgress(TransferProgress(completed: 5, expected: 5)),
                .completed(TransferMetrics()),
            ])
        }

        func response(for request: PreparedRequest) -> SignalProducer<Response, SluiceError> {
            SignalProducer(
                value: Response(
                    status: 200, headers: ["Content-Length": "5"], body: Data("hello".utf8),
                    metrics: TransferMetrics(), request: request.request))
        }
    }

    static func run(_ options: Options) -> SuiteReport {
        let requests = options.isRequestsGiven ? options.requests : 50_000
        let rounds = max(3, options.rounds)
        let unobserved = try! Sluice.Client(baseURL: "http://bench.invalid/", transport: InstantTransport())
        let observed = try! Sluice.Client(baseURL: "http://bench.invalid/", transport: InstantTransport())
        let seen = Lock(0)
        let observation = observed.events.observeValues { _ in seen.withLock { $0 += 1 } }
        defer { observation.dispose() }

        func perRequest(_ client: Sluice.Client) -> Double {
            let (nanoseconds, _) = Measure.time {
                for _ in 0..<requests {
                    _ = client.get("x").start()
                }
            }
            return Double(nanoseconds) / Double(requests)
        }

        _ = perRequest(unobserved)  // warm-up
        _ = perRequest(observed)
        var quiet: [Double] = []
        var watched: [Double] = []
        for round in 0..<rounds {
            note("events: round \(round + 1)/\(rounds)")
            quiet.append(perRequest(unobserved))
            watched.append(perRequest(observed))
        }
        let quietNs = Measure.median(quiet)
        let watchedNs = Measure.median(watched)
        let eventsPerRequest = Double(seen.withLock { $0 }) / Double(requests * (rounds + 1))
        let lines = [
            "Lifecycle events — \(requests) requests per round through Client.get on an in-memory transport,",
            "\(rounds) rounds interleaved, medians:",
            "",
            "| client | ns per request | events per request |",
            "| --- | ---: | ---: |",
            String(format: "| nobody observes `client.events` | %.0f | 0 |", quietNs),
            String(format: "| an observer on `client.events` | %.0f | %.1f |", watchedNs, eventsPerRequest),
            String(format: "| observed ÷ unobserved | %.2f× | |", watchedNs / quietNs),
            "",
            "An unobserved client builds no event at all (one atomic load per request decides it).",
        ]
        let json = JSON.object([
            ("unobserved_ns_per_request", .number(quietNs)),
            ("observed_ns_per_request", .number(watchedNs)),
            ("observed_ratio", .number(watchedNs / quietNs)),
            ("events_per_request", .number(eventsPerRequest)),
        ])
        return SuiteReport(text: lines.joined(separator: "\n"), json: json, isConsistent: eventsPerRequest > 0)
    }
}
