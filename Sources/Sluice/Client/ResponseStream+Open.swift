import FoundationEssentials
import Synchronization

extension ResponseStream {
    /// Sends the request and returns as soon as the response's head has arrived: the status and
    /// headers, and the body as an async sequence of chunks with backpressure (see
    /// `ResponseBodyStream`), read once. Validation (`validate()`) has run on the head by then, so
    /// a rejected response throws here, with its body in the error.
    ///
    ///     let (head, body) = try await client.stream("events").validate().open()
    ///     guard head.headers["Content-Type"] == "application/x-ndjson" else { return }
    ///     for try await chunk in body { … }
    ///
    /// Dropping `body` without reading it to the end cancels the transfer; cancelling the task
    /// that awaits throws `.cancelled`.
    public func open(bufferLimit: Int = 4 << 20) async throws(SluiceError) -> (head: ResponseHead, body: OpenedBody) {
        let control = TransferControl()
        let buffer = BodyBuffer(limit: bufferLimit, control: control)
        let parts = response(bufferLimit: bufferLimit, control: control)
            .flatMap(.concat) { response in
                buffer.head.withLock { $0 = response.head }
                return SignalProducer<StreamPart, SluiceError>(value: .head(response.head))
                    .concat(response.bodyChunks.map { StreamPart.chunk($0) })
            }
            .on(value: { part in if case .chunk(let chunk) = part { buffer.added(chunk.count) } })
            .values
        var iterator = parts.makeAsyncIterator()
        guard case .head(let head)? = try await iterator.next() else {
            throw SluiceError(.cancelled, "The stream was cancelled before its response's head arrived.")
        }
        return (head, OpenedBody(iterator: iterator, buffer: buffer))
    }
}

/// What an opened stream delivers, in order: the head once, then the body's chunks.
enum StreamPart: Sendable {
    case head(ResponseHead)
    case chunk(Data)
}

/// The body of an opened stream (`ResponseStream.open()`): its chunks as they arrive, with
/// backpressure. It can be iterated once; a second iteration throws `.bodyAlreadyRead`.
public struct OpenedBody: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = Data

    private let pending: Box
    private let buffer: BodyBuffer

    /// Holds the iterator until the one iteration takes it.
    private final class Box: Sendable {
        let iterator: Mutex<AsyncSignalValues<StreamPart, SluiceError>.Iterator?>
        init(_ iterator: AsyncSignalValues<StreamPart, SluiceError>.Iterator) { self.iterator = Mutex(iterator) }
    }

    init(iterator: AsyncSignalValues<StreamPart, SluiceError>.Iterator, buffer: BodyBuffer) {
        pending = Box(iterator)
        self.buffer = buffer
    }

    /// The iterator over the chunks (the only one: a second throws `.bodyAlreadyRead` when read).
    public func makeAsyncIterator() -> Iterator {
        Iterator(inner: pending.iterator.withLock { $0.take() }, buffer: buffer)
    }

    /// Iterates over the chunks, resuming the transfer as the buffer drains.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        var inner: AsyncSignalValues<StreamPart, SluiceError>.Iterator?
        let buffer: BodyBuffer

        /// The most bytes that were waiting for the consumer at any time.
        public var peakBufferedBytes: Int { buffer.state.withLock { $0.peak } }

        /// The next chunk, or nil at the end of the body.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(SluiceError) -> Data? {
            guard inner != nil else {
                throw SluiceError(.bodyAlreadyRead, "The body of an opened stream can be read once.")
            }
            while let part = try await inner!.next(isolation: actor) {
                guard case .chunk(let chunk) = part else { continue }
                buffer.taken(chunk.count)
                return chunk
            }
            return nil
        }

        /// The next chunk, or nil at the end of the body.
        public mutating func next() async throws(SluiceError) -> Data? {
            try await next(isolation: nil)
        }
    }
}
