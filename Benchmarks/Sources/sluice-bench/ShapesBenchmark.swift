import BenchChild
import Foundation
import Sluice

/// What the parts of a request cost on top of a plain GET: parameters encoded into the query or a
/// body, and `validate()` matching a response's Content-Type against the request's Accept header.
/// Through a client on a transport that answers at once from memory, so the figures are Sluice's
/// own work; each shape side by side with the plain GET, interleaved, as ratios.
enum ShapesBenchmark: Suite {
    static let name = "shapes"
    static let summary = "request shapes: ns per request with parameters, Accept + validate(), vs a plain GET"

    /// Answers every request at once with a small JSON response.
    struct InstantJSONTransport: Transport {
        func transfer(_ request: PreparedRequest) -> SignalProducer<TransferEvent, SluiceError> {
            SignalProducer(error: SluiceError(.transportFailure, "the shapes suite collects responses only"))
        }

        func response(for request: PreparedRequest) -> SignalProducer<Response, SluiceError> {
            SignalProducer(
                value: Response(
                    status: 200,
                    headers: ["Content-Type": "application/json; charset=utf-8", "Content-Length": "2"],
                    body: Data("{}".utf8), metrics: TransferMetrics(), request: request.request))
        }
    }

    /// The nested query of AFNetworking's documentation, with a value that needs escaping.
    static let query: Parameters = [
        "filter": ["team": "core", "page": 2], "expand": ["owner", "teams"], "q": "café & bar",
    ]

    /// A form body of three fields.
    static let form: Parameters = ["name": "Ada Lovelace", "roles": ["admin", "dev"], "age": 36]

    static func run(_ options: Options) -> SuiteReport {
        let requests = options.isRequestsGiven ? options.requests : 50_000
        let rounds = max(3, options.rounds)
        let client = try! Sluice.Client(baseURL: "http://bench.invalid/v1/", transport: InstantJSONTransport())
        let failures = Lock(0)
        let count: @Sendable (Result<Response, SluiceError>) -> Void = { result in
            if case .failure = result { failures.withLock { $0 += 1 } }
        }
        let shapes: [(key: String, title: String, start: () -> Void)] = [
            ("plain_get", "`get(\"users\")`", { _ = client.get("users").startWithResult(count) }),
            (
                "get_query", "`get(\"users\", parameters:)`, a nested query of five pairs",
                { _ = client.get("users", parameters: query).startWithResult(count) }
            ),
            (
                "post_form", "`post(\"users\", parameters:)`, a form body of four pairs",
                { _ = client.post("users", parameters: form).startWithResult(count) }
            ),
            (
                "post_json", "`post(\"users\", parameters:, encoding: JSONEncoding.default)`",
                { _ = client.post("users", parameters: form, encoding: JSONEncoding.default).startWithResult(count) }
            ),
            (
                "get_accept_validate", "`get(\"users\", headers: [\"Accept\": \"application/json\"]).validate()`",
                {
                    _ = client.get("users", headers: ["Accept": "application/json"]).validate().startWithResult(count)
                }
            ),
        ]

        func perRequest(_ start: () -> Void) -> Double {
            let (nanoseconds, _) = Measure.time {
                for _ in 0..<requests { start() }
            }
            return Double(nanoseconds) / Double(requests)
        }

        for shape in shapes { _ = perRequest(shape.start) }  // warm-up
        var samples = [[Double]](repeating: [], count: shapes.count)
        for round in 0..<rounds {
            note("shapes: round \(round + 1)/\(rounds)")
            for (index, shape) in shapes.enumerated() { samples[index].append(perRequest(shape.start)) }
        }
        let medians = samples.map(Measure.median)
        var lines = [
            "Request shapes — \(requests) requests per round through a client on an in-memory transport,",
            "\(rounds) rounds interleaved, medians:",
            "",
            "| request | ns per request | ÷ plain GET |",
            "| --- | ---: | ---: |",
        ]
        var members: [(String, JSON)] = []
        for (index, shape) in shapes.enumerated() {
            lines.append(
                String(format: "| %@ | %.0f | %.2f× |", shape.title, medians[index], medians[index] / medians[0]))
            members.append(("\(shape.key)_ns_per_request", .number(medians[index])))
        }
        let failed = failures.withLock { $0 }
        lines += ["", "Every request succeeded: \(failed == 0 ? "yes" : "NO, \(failed) failed")."]
        members.append(("all_succeeded", .bool(failed == 0)))
        return SuiteReport(text: lines.joined(separator: "\n"), json: .object(members), isConsistent: failed == 0)
    }
}
