import Foundation
import Sluice

/// Step: Server-Sent Events, as LLM and notification APIs stream them: parsed, decoded, and
/// resumed after a disconnect with `Last-Event-ID`.
enum EventStreamTour {
    struct Tick: Decodable, Sendable {
        let n: Int
    }

    static func run(_ client: Client) async throws {
        Tour.step("Server-Sent Events: decoded as they arrive; the server ends the stream with 204")
        let ticks = client.eventStream("events", parameters: ["count": 4, "interval": 50])
            .on(value: { event in print("  \(event.event) #\(event.id ?? "?"): \(event.data)") })
            .decode(Tick.self)
        let received = try await ticks.collect().value
        print("  \(received.count) ticks; the reconnection sent Last-Event-ID: 4 and got 204 No Content")

        Tour.step("A validated stream: the head first, a 404 is an error with its body, not chunks")
        let (head, body) = try await client.stream("bytes/4096").validate().open()
        var bytes = 0
        for try await chunk in body { bytes += chunk.count }
        print("  \(head.status) \(head.headers["Content-Type"] ?? ""), then \(bytes) bytes")
        do {
            _ = try await client.stream("status/404").validate().open()
        } catch {
            print("  \(error.code): \(error.responseBodyText ?? "")")
        }
    }
}
