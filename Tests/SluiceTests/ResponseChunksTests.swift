import Foundation
import Synchronization
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// Collects what a producer of chunks sends.
private final class ChunkRecorder: Sendable {
    private let events = Mutex<[Event<Data, SluiceError>]>([])
    var observer: Observer<Data, SluiceError> { Observer { event in self.events.withLock { $0.append(event) } } }
    var chunks: [Data] { events.withLock { $0.compactMap { if case .value(let chunk) = $0 { chunk } else { nil } } } }
    var terminal: Event<Data, SluiceError>? { events.withLock { $0.last.flatMap { $0.isTerminating ? $0 : nil } } }
}

@Suite("Streaming response bodies")
struct ResponseChunksTests {
    @Test func chunksThatArriveBeforeTheReaderWaitAndComeFirstInOrder() {
        let chunks = ResponseChunks(control: nil)
        chunks.append(Data("a".utf8))
        chunks.append(Data("b".utf8))
        let recorder = ChunkRecorder()
        chunks.chunks.start(recorder.observer)
        chunks.append(Data("c".utf8))
        var metrics = TransferMetrics()
        metrics.bytesReceived = 3
        chunks.finish(metrics: metrics)
        #expect(recorder.chunks == [Data("a".utf8), Data("b".utf8), Data("c".utf8)])
        if case .completed = recorder.terminal {
        } else {
            Issue.record("completed, not \(String(describing: recorder.terminal))")
        }
        #expect(chunks.metrics?.bytesReceived == 3)
    }

    @Test func tooMuchWaitingSuspendsTheTransferUntilTheReaderStarts() {
        let control = TransferControl()
        let chunks = ResponseChunks(control: control, bufferLimit: 10)
        chunks.append(Data(count: 8))
        #expect(!control.isSuspended)
        chunks.append(Data(count: 8))
        #expect(control.isSuspended, "16 bytes wait against a limit of 10")
        let recorder = ChunkRecorder()
        chunks.chunks.start(recorder.observer)
        #expect(!control.isSuspended, "resumed once the reader took the chunks")
        #expect(recorder.chunks.map(\.count) == [8, 8])
    }

    @Test func aDiscardedBodyLetsTheTransferRunAndCannotBeReadAfter() {
        let control = TransferControl()
        let chunks = ResponseChunks(control: control, bufferLimit: 4)
        chunks.append(Data(count: 10))
        #expect(control.isSuspended)
        chunks.discard()
        #expect(!control.isSuspended)
        chunks.append(Data(count: 10))
        #expect(!control.isSuspended, "chunks after a discard are dropped, never held")
        let recorder = ChunkRecorder()
        chunks.chunks.start(recorder.observer)
        #expect(recorder.chunks.isEmpty)
        if case .failed(let error) = recorder.terminal {
            #expect(error.code == .bodyAlreadyRead)
        } else {
            Issue.record("a discarded body fails its reader, got \(String(describing: recorder.terminal))")
        }
    }

    @Test func aBodyIsReadOnce() {
        let chunks = ResponseChunks(control: nil)
        chunks.chunks.start(ChunkRecorder().observer)
        let second = ChunkRecorder()
        chunks.chunks.start(second.observer)
        if case .failed(let error) = second.terminal {
            #expect(error.code == .bodyAlreadyRead)
        } else {
            Issue.record("a second read fails")
        }
    }

    @Test func aFailureReachesTheReaderAfterTheChunksBeforeIt() {
        let chunks = ResponseChunks(control: nil)
        let recorder = ChunkRecorder()
        chunks.chunks.start(recorder.observer)
        chunks.append(Data("x".utf8))
        chunks.fail(SluiceError(.connectionLost, "reset"))
        chunks.append(Data("late".utf8))
        #expect(recorder.chunks == [Data("x".utf8)])
        if case .failed(let error) = recorder.terminal {
            #expect(error.code == .connectionLost)
        } else {
            Issue.record("failed, got \(String(describing: recorder.terminal))")
        }
    }

    @Test func chunksFromAnotherThreadWhileTheReaderStartsArriveInOrderOnce() async {
        for _ in 0..<200 {
            let chunks = ResponseChunks(control: nil)
            let recorder = ChunkRecorder()
            let writer = Task.detached {
                for index in 0..<50 { chunks.append(Data([UInt8(index)])) }
                chunks.finish(metrics: TransferMetrics())
            }
            chunks.chunks.start(recorder.observer)
            await writer.value
            #expect(recorder.chunks.map { $0[0] } == (0..<50).map(UInt8.init))
            if case .completed = recorder.terminal {} else { Issue.record("completed once at the end") }
        }
    }

    @Test func collectedReadsTheStreamIntoTheBody() async throws {
        let chunks = ResponseChunks(control: nil)
        let request = Request(method: .get, url: URL(string: "https://a.example/")!)
        let response = Response(
            head: ResponseHead(status: 200, headers: ["X": "1"], httpVersion: .http1_1), content: .streaming(chunks),
            request: request)
        #expect(response.body.isEmpty)
        chunks.append(Data("he".utf8))
        var metrics = TransferMetrics()
        metrics.bytesReceived = 5
        Task.detached {
            chunks.append(Data("llo".utf8))
            chunks.finish(metrics: metrics)
        }
        let whole = try await response.collected().value
        #expect(whole.body == Data("hello".utf8))
        #expect(whole.headers["X"] == "1")
        #expect(whole.metrics?.bytesReceived == 5)
        if case .collected = whole.content {} else { Issue.record("collected") }
    }
}
