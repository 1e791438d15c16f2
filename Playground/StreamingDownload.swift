import Foundation
import Sluice

/// Step 3: a body streamed in chunks, with backpressure and a live progress bar.
enum StreamingDownload {
    static func run(_ client: Client) async throws {
        Tour.step("Stream a 64 MiB download: chunks arrive as they come; a slow consumer pauses the transfer")
        let size = 64 << 20
        let request = try Request(url: try client.url(for: "bytes/\(size)")).prepared()
        let started = ContinuousClock.now
        var received = 0
        var lastShown = -1
        for try await chunk in client.transport.bodyStream(for: request, bufferLimit: 2 << 20) {
            received += chunk.count
            let percent = received * 100 / size
            if percent != lastShown {
                lastShown = percent
                ProgressBar.show(fraction: Double(received) / Double(size), detail: "\(received >> 20) MiB")
            }
        }
        let seconds = (ContinuousClock.now - started).timeInterval
        ProgressBar.finish(
            detail: String(
                format: "%d MiB in %.2f s (%.0f MB/s)", received >> 20, seconds, Double(received) / seconds / 1e6))
    }
}

/// Draws a one-line progress bar (redrawn in place on a terminal, every 25% otherwise).
enum ProgressBar {
    private static let isTerminal = isatty(STDOUT_FILENO) != 0

    static func show(fraction: Double, detail: String) {
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        let percent = Int(fraction * 100)
        if isTerminal {
            print("\r  [\(bar)] \(percent)% \(detail)   ", terminator: "")
            fflush(nil)  // all streams: referring to `stdout` is not concurrency-safe
        } else if percent % 25 == 0 {
            print("  [\(bar)] \(percent)% \(detail)")
        }
    }

    static func finish(detail: String) {
        if isTerminal { print("") }
        print("  done: \(detail)")
    }
}
