import Foundation
import Sluice

/// Step 5: cancelling requests in flight, and running batches with a concurrency limit.
enum CancellingAndBatches {
    static func run(_ client: Client) async throws {
        Tour.step("Cancel: disposing a request, or cancelAll(method:path:), interrupts it")
        let slow = client.get("delay/5000").on(interrupted: { print("  the slow request was interrupted") })
        let disposable = slow.start()
        try await Task.sleep(for: .milliseconds(100))
        print("  in flight: \(client.inFlightCount)")
        disposable.dispose()

        Tour.step("Batch: ten requests, three at a time, progress as they finish, results in order")
        let requests = (1...10).map { client.get("bytes/\($0 * 100)") }
        for await event in client.batch(requests, maxConcurrent: 3).values {
            switch event {
            case .progress(let finished, let total):
                ProgressBar.show(fraction: Double(finished) / Double(total), detail: "\(finished)/\(total)")
            case .finished(let results):
                let sizes = results.map { (try? $0.get().body.count).map(String.init) ?? "error" }
                ProgressBar.finish(detail: "sizes " + sizes.joined(separator: ", "))
            }
        }
    }
}
