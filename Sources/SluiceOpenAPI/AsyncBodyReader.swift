import FoundationEssentials
import OpenAPIRuntime
import Sluice
import Synchronization

/// Sends an `HTTPBody` as a request body as its chunks arrive: a task iterates the body into a
/// buffer of at most `bufferLimit` bytes (it waits while the buffer is full), and libcurl's reads
/// take from the buffer; when it is empty, the upload pauses (`WakingBodyReader`) and other
/// transfers go on, until the task wakes it.
final class AsyncBodyReader: WakingBodyReader, @unchecked Sendable {
    // `@unchecked`: the state is behind its mutex; `wake` is set once, by the transport, before
    // the first read, on the thread that reads.
    var wake: (@Sendable () -> Void)? {
        get { pipe.wake.withLock { $0 } }
        set { pipe.wake.withLock { $0 = newValue } }
    }

    private let pipe: BodyPipe
    private let task: Task<Void, Never>

    init(_ body: HTTPBody, bufferLimit: Int) {
        let pipe = BodyPipe(limit: bufferLimit)
        self.pipe = pipe
        task = Task {
            do {
                for try await chunk in body {
                    await pipe.append(Data(chunk))
                    if Task.isCancelled { break }
                }
                pipe.finish(nil)
            } catch {
                pipe.finish(error)
            }
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try pipe.take(into: buffer)
    }

    deinit {
        // The transfer ended (or was cancelled) before the body did: stop reading it.
        task.cancel()
        pipe.finish(CancellationError())
    }
}

/// The bytes between the task that reads an `HTTPBody` and libcurl's reads.
final class BodyPipe: Sendable {
    private struct State {
        var chunks: [Data] = []
        var buffered = 0
        /// The end of the body: nil while it goes on, then the error it ended with, if any.
        var end: (any Error)?? = nil
        /// The task waits for room in the buffer.
        var waitingForRoom: CheckedContinuation<Void, Never>?
        /// A read found nothing: the upload is paused until bytes or the end arrive.
        var readerWaits = false
    }

    let wake = Mutex<(@Sendable () -> Void)?>(nil)
    private let state = Mutex(State())
    private let limit: Int

    init(limit: Int) { self.limit = max(1, limit) }

    /// Adds a chunk, then waits while the buffer holds more than the limit.
    func append(_ chunk: Data) async {
        guard !chunk.isEmpty else { return }
        let wakeReader = state.withLock { state -> Bool in
            guard state.end == nil else { return false }
            state.chunks.append(chunk)
            state.buffered += chunk.count
            defer { state.readerWaits = false }
            return state.readerWaits
        }
        if wakeReader { wake.withLock { $0 }?() }
        await withCheckedContinuation { continuation in
            let full = state.withLock { state -> Bool in
                guard state.buffered > limit, state.end == nil else { return false }
                state.waitingForRoom = continuation
                return true
            }
            if !full { continuation.resume() }
        }
    }

    /// Ends the body, with `error` if it failed; the first end counts.
    func finish(_ error: (any Error)?) {
        let (wakeReader, waiting) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard state.end == nil else { return (false, nil) }
            state.end = .some(error)
            let waiting = state.waitingForRoom
            state.waitingForRoom = nil
            defer { state.readerWaits = false }
            return (state.readerWaits, waiting)
        }
        waiting?.resume()
        if wakeReader { wake.withLock { $0 }?() }
    }

    /// Copies waiting bytes into `buffer`: their count, 0 at the end, `notReady` when none are
    /// there yet; throws the error the body ended with.
    func take(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let (count, room) = try state.withLock { state throws -> (Int, CheckedContinuation<Void, Never>?) in
            var copied = 0
            while copied < buffer.count, let first = state.chunks.first {
                let count = min(buffer.count - copied, first.count)
                first.withUnsafeBytes { bytes in
                    (buffer.baseAddress! + copied).copyMemory(from: bytes.baseAddress!, byteCount: count)
                }
                copied += count
                if count == first.count {
                    state.chunks.removeFirst()
                } else {
                    state.chunks[0] = first.subdata(in: first.startIndex + count..<first.endIndex)
                }
            }
            state.buffered -= copied
            var room: CheckedContinuation<Void, Never>?
            if state.buffered <= limit / 2 {
                room = state.waitingForRoom
                state.waitingForRoom = nil
            }
            if copied > 0 { return (copied, room) }
            switch state.end {
            case .none:
                state.readerWaits = true
                return (AsyncBodyReader.notReady, room)
            case .some(.none): return (0, room)
            case .some(.some(let error)): throw error
            }
        }
        room?.resume()
        return count
    }
}
