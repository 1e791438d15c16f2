import Foundation
import Sluice
import SluiceTesting
import Synchronization
import Testing

/// A request body whose bytes come from another thread over time: the upload pauses while none are
/// ready, and the transport's thread serves other transfers meanwhile.
@Suite struct WakingBodyReaderTests {
    @Test func anUploadWaitsForItsBytesWithoutHoldingTheLoop() async throws {
        try await withServer { server, transport in
            let source = DrippingReader(chunks: 4, size: 50_000, interval: .milliseconds(200))
            let client = try Client(transport: transport)
            let upload = Task {
                try await client.post(server.url(for: .echo).absoluteString) {
                    $0.body = .stream(BodyProvider(length: nil) { source })
                }.value
            }
            try await Task.sleep(for: .milliseconds(100))
            let started = ContinuousClock.now
            for _ in 0..<3 { _ = try await client.get(server.url(for: .echo).absoluteString).value }
            #expect(ContinuousClock.now - started < .milliseconds(400))

            let reply = try JSONDecoder().decode(EchoReply.self, from: try await upload.value.body)
            #expect(reply.bodyLength == 200_000)
            #expect(reply.bodyChecksum == MockServer.deterministicChecksum(count: 200_000))
            #expect(source.pauses > 0)
        }
    }
}

/// Hands out `chunks` deterministic chunks of `size` bytes, one every `interval`, from a thread of
/// its own; `notReady` in between.
private final class DrippingReader: WakingBodyReader, @unchecked Sendable {
    private struct State {
        var ready = Data()
        var offset = 0
        var produced = 0
        var waiting = false
        var pauses = 0
        var wake: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let chunks: Int

    var wake: (@Sendable () -> Void)? {
        get { state.withLock { $0.wake } }
        set { state.withLock { $0.wake = newValue } }
    }

    var pauses: Int { state.withLock { $0.pauses } }

    init(chunks: Int, size: Int, interval: Duration) {
        self.chunks = chunks
        Thread.detachNewThread { [self] in
            for index in 0..<chunks {
                Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18)
                let wake = state.withLock { state -> (@Sendable () -> Void)? in
                    state.ready.append(MockServer.deterministicBytes(count: size, offset: index * size))
                    state.produced += 1
                    defer { state.waiting = false }
                    return state.waiting ? state.wake : nil
                }
                wake?()
            }
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        state.withLock { state in
            let available = state.ready.count - state.offset
            if available == 0 {
                if state.produced == chunks { return 0 }
                state.waiting = true
                state.pauses += 1
                return Self.notReady
            }
            let count = min(available, buffer.count)
            state.ready.withUnsafeBytes { bytes in
                buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + state.offset, byteCount: count)
            }
            state.offset += count
            return count
        }
    }
}
