import FoundationEssentials
import Sluice

/// A response body for `HTTPBody`: the chunk read before the response was handed out, then the
/// rest of the stream, read as the generated code asks for it (iterated once: `HTTPBody` sees to it).
struct ResponseBodyChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let first: Data?
    let rest: ResponseBodyStream.Iterator

    func makeAsyncIterator() -> Iterator {
        Iterator(first: first, rest: rest)
    }

    struct Iterator: AsyncIteratorProtocol {
        var first: Data?
        var rest: ResponseBodyStream.Iterator?

        mutating func next() async throws -> ArraySlice<UInt8>? {
            if let chunk = first {
                first = nil
                return ArraySlice(chunk)
            }
            guard var stream = rest else { return nil }
            // Taken out while it is read: after the end, the transfer is let go at once.
            rest = nil
            let chunk: Data?
            do {
                chunk = try await stream.next()
            } catch {
                throw SluiceClientTransport.error(for: error)
            }
            guard let chunk else {
                // A stream ends early when its task is cancelled: that end is no body's end.
                try Task.checkCancellation()
                return nil
            }
            rest = stream
            return ArraySlice(chunk)
        }
    }
}
