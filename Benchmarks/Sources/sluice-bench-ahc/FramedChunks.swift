import NIOCore

/// A file's chunks with a head before them and a tail after: a multipart form of one file part.
struct FramedChunks<Chunks: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Chunks.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let head: ByteBuffer
    let chunks: Chunks
    let tail: ByteBuffer

    struct AsyncIterator: AsyncIteratorProtocol {
        /// 0: the head is next; 1: the chunks, then the tail; 2: done.
        var stage = 0
        let head: ByteBuffer
        var chunks: Chunks.AsyncIterator
        let tail: ByteBuffer

        mutating func next() async throws -> ByteBuffer? {
            switch stage {
            case 0:
                stage = 1
                return head
            case 1:
                if let chunk = try await chunks.next() { return chunk }
                stage = 2
                return tail
            default:
                return nil
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(head: head, chunks: chunks.makeAsyncIterator(), tail: tail)
    }
}
