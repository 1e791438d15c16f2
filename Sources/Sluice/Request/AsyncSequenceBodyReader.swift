import FoundationEssentials
import Synchronization

/// The bytes of an `AsyncSequence`, pulled by a task of their own and handed to libcurl's read
/// callback without ever blocking the transport's thread: when nothing is ready, the transfer's
/// sending side pauses, and the reader wakes it when bytes (or the end) arrive.
///
/// At most `bufferLimit` bytes wait between the sequence and the transfer: the pulling task waits
/// for the transfer to take them before it asks the sequence for more.
final class AsyncSequenceBodyReader: BodyReader, Sendable {
    /// What a read found.
    enum Read {
        /// This many bytes were copied (0: the body has ended).
        case bytes(Int)
        /// Nothing yet: `wake` will be called once there is.
        case waiting
    }

    private struct State {
        var chunks: [Data] = []
        var offset = 0
        var buffered = 0
        var finished = false
        var failure: String?
        var wake: (@Sendable () -> Void)?
        var demand: CheckedContinuation<Void, Never>?
        var pump: Task<Void, Never>?
    }

    private let state = Lock(State())
    private let bufferLimit: Int
    private let start: @Sendable (AsyncSequenceBodyReader) -> Task<Void, Never>

    init<Bytes: AsyncSequence & Sendable>(_ bytes: Bytes, bufferLimit: Int = 256 * 1024)
    where Bytes.Element == Data {
        // At least a byte: with none, the pulling task waited for room that never came.
        self.bufferLimit = max(1, bufferLimit)
        start = { reader in
            Task {
                do {
                    for try await chunk in bytes where !chunk.isEmpty {
                        await reader.push(chunk)
                        if Task.isCancelled { return }
                    }
                    reader.end(failure: nil)
                } catch {
                    reader.end(failure: "\(error)")
                }
            }
        }
    }

    deinit {
        state.withLock { $0.pump }?.cancel()
    }

    /// Ends the reading when the transfer lets go of the body (it finished, failed, was cancelled,
    /// or starts the body again with a new reader): the pulling task is cancelled, which cancels the
    /// sequence's iteration, and let go if it waits for room. Without this, the task, which holds
    /// the reader, waited for the transfer forever, holding the sequence, its buffer and itself.
    func close() {
        let (pump, demand) = state.withLock { s -> (Task<Void, Never>?, CheckedContinuation<Void, Never>?) in
            s.finished = true
            s.chunks = []
            s.buffered = 0
            s.wake = nil
            defer {
                s.pump = nil
                s.demand = nil
            }
            return (s.pump, s.demand)
        }
        pump?.cancel()
        demand?.resume()
    }

    /// Blocking reads are not offered: the transport reads through `read(into:wake:)`.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        throw SluiceError(.invalidBody, "An async body is read by the transport only.")
    }

    /// Copies what is ready into `buffer`, or says nothing is and keeps `wake` for when it is.
    func read(into buffer: UnsafeMutableRawBufferPointer, wake: @escaping @Sendable () -> Void) throws(SluiceError)
        -> Read
    {
        var startPump = false
        let (read, demand, failure) = state.withLock { s -> (Read, CheckedContinuation<Void, Never>?, String?) in
            if s.pump == nil, !s.finished {
                startPump = true
            }
            var copied = 0
            while copied < buffer.count, let chunk = s.chunks.first {
                let count = min(buffer.count - copied, chunk.count - s.offset)
                chunk.withUnsafeBytes { bytes in
                    (buffer.baseAddress! + copied).copyMemory(from: bytes.baseAddress! + s.offset, byteCount: count)
                }
                copied += count
                s.offset += count
                s.buffered -= count
                if s.offset == chunk.count {
                    s.chunks.removeFirst()
                    s.offset = 0
                }
            }
            let demand = s.buffered < bufferLimit ? s.demand : nil
            if demand != nil { s.demand = nil }
            if copied > 0 { return (.bytes(copied), demand, nil) }
            if let failure = s.failure { return (.bytes(0), demand, failure) }
            if s.finished { return (.bytes(0), demand, nil) }
            s.wake = wake
            return (.waiting, demand, nil)
        }
        if startPump {
            let task = start(self)
            // Closed meanwhile: the task is not kept, and stops at once.
            let closed = state.withLock { s -> Bool in
                if !s.finished { s.pump = task }
                return s.finished
            }
            if closed { task.cancel() }
        }
        demand?.resume()
        if let failure { throw SluiceError(.invalidBody, "The body's async sequence failed: \(failure).") }
        return read
    }

    /// Adds a chunk, waking a paused transfer; waits while the buffer is full.
    private func push(_ chunk: Data) async {
        let wake = state.withLock { s -> (@Sendable () -> Void)? in
            // Closed: nobody reads any more (the task is cancelled and stops after this chunk).
            guard !s.finished else { return nil }
            s.chunks.append(chunk)
            s.buffered += chunk.count
            defer { s.wake = nil }
            return s.wake
        }
        wake?()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.buffered < bufferLimit || s.finished { return true }
                s.demand = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// The sequence ended, or failed with `failure`.
    private func end(failure: String?) {
        let wake = state.withLock { s -> (@Sendable () -> Void)? in
            s.finished = true
            s.failure = failure
            defer { s.wake = nil }
            return s.wake
        }
        wake?()
    }
}

extension BodyProvider {
    /// A provider of the bytes an `AsyncSequence` yields, sent as they come (chunked when `length`
    /// is nil) without blocking the transport: when the sequence falls behind, the sending pauses.
    ///
    /// Unless `canRepeat` says the sequence can be iterated again from its start, it is read once:
    /// a retry or a redirect that must send the body again (307, 308) fails with `.invalidBody`.
    /// A failing sequence fails the request with `.invalidBody`. At most `bufferLimit` bytes wait
    /// between the sequence and the network.
    public init<Bytes: AsyncSequence & Sendable>(
        bytes: Bytes, length: Int64? = nil, canRepeat: Bool = false, bufferLimit: Int = 256 * 1024
    ) where Bytes.Element == Data {
        let used = Lock(false)
        self.init(length: length) {
            let again = used.withLock { used in
                defer { used = true }
                return used
            }
            if again && !canRepeat {
                throw SluiceError(
                    .invalidBody, "An async sequence body can be sent once; a retry or redirect needed it again.")
            }
            return AsyncSequenceBodyReader(bytes, bufferLimit: bufferLimit)
        }
    }
}
