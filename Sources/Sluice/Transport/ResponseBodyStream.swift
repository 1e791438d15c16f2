import FoundationEssentials

/// A response body as an `AsyncSequence` of chunks, with backpressure: when the consumer falls
/// behind and more than `bufferLimit` bytes wait, the transfer is suspended (`curl_easy_pause`),
/// and it resumes once the consumer has taken the buffer below half the limit. Nothing is buffered
/// without bound, and a slow consumer never stalls other transfers.
///
/// Each iteration sends the request again. The head arrives with the first chunk (see `head`);
/// the sequence throws `SluiceError` if the transfer fails, and ends early if the task is cancelled.
public struct ResponseBodyStream: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = Data

    /// The response with its body streaming, for a control that suspends and resumes the transfer.
    let response: @Sendable (TransferControl) -> SignalProducer<Response, SluiceError>
    let bufferLimit: Int

    /// Starts the transfer and returns an iterator over its body.
    public func makeAsyncIterator() -> Iterator {
        let control = TransferControl()
        let buffer = BodyBuffer(limit: bufferLimit, control: control)
        let values = response(control)
            .flatMap(.concat) { response in
                buffer.head.withLock { $0 = response.head }
                return response.bodyChunks
            }
            .on(value: { chunk in buffer.added(chunk.count) })
            .values
        return Iterator(inner: values.makeAsyncIterator(), buffer: buffer)
    }

    /// Iterates over the chunks, resuming the transfer as the buffer drains.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        var inner: AsyncSignalValues<Data, SluiceError>.Iterator
        let buffer: BodyBuffer

        /// The status line and headers, once the first chunk (or the end) has arrived.
        public var head: ResponseHead? { buffer.head.withLock { $0 } }

        /// The most bytes that were waiting for the consumer at any time.
        public var peakBufferedBytes: Int { buffer.state.withLock { $0.peak } }

        /// The next chunk, or nil at the end of the body.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(SluiceError) -> Data? {
            let chunk = try await inner.next(isolation: actor)
            if let chunk { buffer.taken(chunk.count) }
            return chunk
        }

        /// The next chunk, or nil at the end of the body.
        public mutating func next() async throws(SluiceError) -> Data? {
            try await next(isolation: nil)
        }
    }
}

/// Counts the bytes between the transfer and the consumer and drives suspension.
final class BodyBuffer: Sendable {
    struct State {
        var buffered = 0
        var peak = 0
        var isSuspended = false
    }

    let limit: Int
    let control: TransferControl
    let state = Lock(State())
    let head = Lock<ResponseHead?>(nil)

    init(limit: Int, control: TransferControl) {
        self.limit = max(1, limit)
        self.control = control
    }

    // The control is told while the lock is held, so it sees the decisions in the order they were
    // made. Told after unlocking, a consumer draining the buffer could decide to resume between the
    // transfer's decision to suspend and its `suspend()`: the resume found the control running and
    // did nothing, the suspend then paused the transfer, and with nothing left to read and nothing
    // arriving, the consumer waited for good. (The control's lock and the command queue's are
    // taken inside this one; neither ever takes this one.)

    func added(_ count: Int) {
        state.withLock { s in
            s.buffered += count
            s.peak = max(s.peak, s.buffered)
            guard s.buffered > limit, !s.isSuspended else { return }
            s.isSuspended = true
            control.suspend()
        }
    }

    func taken(_ count: Int) {
        state.withLock { s in
            s.buffered -= count
            guard s.isSuspended, s.buffered <= limit / 2 else { return }
            s.isSuspended = false
            control.resume()
        }
    }
}

extension Transport {
    /// The response body of `request` as chunks with backpressure (see `ResponseBodyStream`).
    public func bodyStream(for request: PreparedRequest, bufferLimit: Int = 4 << 20) -> ResponseBodyStream {
        ResponseBodyStream(
            response: { control in
                self.streamingResponse(for: request, control: control, monitor: nil, bufferLimit: bufferLimit)
            }, bufferLimit: bufferLimit)
    }
}
