import Foundation
import Sluice

/// Step: a request as a task you can suspend and resume, its lifecycle events, and the client's
/// aggregated metrics.
enum TasksAndEvents {
    static func run(_ client: Client) async throws {
        Tour.step("A task: made suspended, resumed, suspended mid-body, resumed; every step is an event")
        let task = try client.task(.get, "drip", parameters: ["bytes": 2000, "chunks": 10, "interval": 100])
        let log = task.events.observeValues { event in
            switch event.kind {
            case .downloadProgress: break
            case .completed(let completion):
                print(
                    "  \(event.taskID) completed: \(completion.response?.status ?? 0), \(completion.body?.count ?? 0) bytes"
                )
            default: print("  \(event.taskID) \(event.kind)")
            }
        }
        task.resume()
        try await Task.sleep(for: .milliseconds(350))
        task.suspend()
        print("  … suspended at \(task.downloadProgress.value.completed) bytes; nothing moves for a while")
        try await Task.sleep(for: .milliseconds(400))
        task.resume()
        _ = try await task.response.value
        try await Task.sleep(for: .milliseconds(50))
        log.dispose()

        Tour.step("Metrics: libcurl's timings per request, aggregated per host")
        let response = try await client.get("bytes/1000").value
        if let metrics = response.metrics {
            print(
                String(
                    format: "  connect %.2f ms, first byte %.2f ms, total %.2f ms, reused connection: %@, from %@",
                    metrics.connect.timeInterval * 1000, metrics.timeToFirstByte.timeInterval * 1000,
                    metrics.total.timeInterval * 1000, "\(metrics.reusedConnection)", metrics.remoteAddress ?? "?"))
        }
        for (host, figures) in client.metrics.value.hosts.sorted(by: { $0.key < $1.key }) {
            print(
                String(
                    format: "  %@: %d requests, error rate %.0f%%, p50 %.2f ms, p99 %.2f ms", host,
                    figures.requestCount, figures.errorRate * 100, figures.latency.p50.timeInterval * 1000,
                    figures.latency.p99.timeInterval * 1000))
        }
    }
}
