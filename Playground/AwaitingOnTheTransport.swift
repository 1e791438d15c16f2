import Foundation
import Sluice

/// Step: requests awaited one after another in a task that runs on the transport's own thread,
/// so that no response crosses threads to reach it.
enum AwaitingOnTheTransport {
    static func run(_ client: Client) async throws {
        Tour.step("Sequential awaits on the transport's executor: no thread hop per response")
        let clock = ContinuousClock()
        let started = clock.now
        // The task's code runs on the loop thread between awaits: keep it short, never block in it.
        let sizes = try await withTaskExecutorPreference(client.taskExecutor) {
            var sizes: [Int] = []
            for size in [10, 20, 30, 40, 50] {
                sizes.append(try await client.get("bytes/\(size)").validate().data().value.count)
            }
            return sizes
        }
        let elapsed = clock.now - started
        print(
            "  five GETs in a row, bodies of \(sizes) bytes, in \(elapsed.formatted(.units(allowed: [.milliseconds])))")
    }
}
