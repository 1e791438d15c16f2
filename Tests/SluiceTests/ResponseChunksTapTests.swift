import Foundation
import Synchronization
import Testing

@testable import Sluice

/// `ResponseChunks.tapped(_:)`, through which the HTTP cache sees a streamed body.
@Suite("Tapped response bodies")
struct ResponseChunksTapTests {
    /// What a tap saw.
    private final class Tap: Sendable {
        private let seen = Mutex<[Event<Data, SluiceError>]>([])
        var action: @Sendable (Event<Data, SluiceError>) -> Void {
            { event in self.seen.withLock { $0.append(event) } }
        }
        var events: [Event<Data, SluiceError>] { seen.withLock { $0 } }
        /// The events as text: a chunk as its UTF-8, an end as its kind.
        var summary: [String] {
            events.map { event in
                switch event {
                case .value(let chunk): String(decoding: chunk, as: UTF8.self)
                case .failed(let error): "failed: \(error.code)"
                case .completed: "completed"
                case .interrupted: "interrupted"
                }
            }
        }
    }

    @Test func theReaderAndTheTapSeeTheSameChunksInOrderAndTheEnd() async throws {
        let original = ResponseChunks(control: nil)
        let tap = Tap()
        let teed = original.tapped(tap.action)
        original.append(Data("a".utf8))
        original.append(Data("b".utf8))
        var metrics = TransferMetrics()
        metrics.bytesReceived = 2
        original.finish(metrics: metrics)
        let read = try await teed.chunks.collect().value
        #expect(read == [Data("a".utf8), Data("b".utf8)])
        #expect(tap.summary == ["a", "b", "completed"])
        #expect(teed.metrics?.bytesReceived == 2, "the original's metrics are passed on")
    }

    @Test func discardingTheTappedBodyLetsGoOfTheOriginalAndTheTapSeesItInterrupted() {
        let control = TransferControl()
        let original = ResponseChunks(control: control, bufferLimit: 4)
        let tap = Tap()
        let teed = original.tapped(tap.action)
        original.append(Data("12345".utf8))
        #expect(control.isSuspended, "unread chunks past the limit hold the transfer back")
        teed.discard()
        #expect(!control.isSuspended, "a discarded body lets the transfer run")
        original.append(Data("more".utf8))
        #expect(tap.summary == ["12345", "interrupted"])
        let again = Mutex<SluiceError?>(nil)
        original.chunks.start { event in if case .failed(let error) = event { again.withLock { $0 = error } } }
        #expect(again.withLock { $0 }?.code == .bodyAlreadyRead, "the original was read and let go of")
    }

    @Test func aFailureReachesTheTapAndTheReader() async {
        let original = ResponseChunks(control: nil)
        let tap = Tap()
        let teed = original.tapped(tap.action)
        original.append(Data("a".utf8))
        original.fail(SluiceError(.connectionLost, "cut"))
        await #expect(throws: SluiceError.self) { _ = try await teed.chunks.collect().value }
        #expect(tap.summary == ["a", "failed: \(SluiceError.Code.connectionLost)"])
    }
}
