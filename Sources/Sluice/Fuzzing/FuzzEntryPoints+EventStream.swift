import FoundationEssentials

extension SluiceFuzzing {
    /// Parses `bytes` as an event stream twice, whole and in chunks whose size the first byte picks,
    /// and stops when the two disagree: how the network cuts a stream must never change its events.
    package static func eventStream(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let first = bytes.first else { return }
        let size = Int(first % 17) + 1
        let body = bytes.dropFirst()
        var whole = EventStreamParser(maximumLineLength: 4096)
        var chunked = EventStreamParser(maximumLineLength: 4096)
        let all: [ServerSentEvent]
        do {
            all = try whole.parse(body)
        } catch {
            // A refused stream is refused however it arrives.
            var refused = false
            var start = body.startIndex
            while start < body.endIndex, !refused {
                let end = min(start + size, body.endIndex)
                do { _ = try chunked.parse(body[start..<end]) } catch { refused = true }
                start = end
            }
            precondition(refused, "a stream refused whole was accepted in chunks")
            return
        }
        var pieces: [ServerSentEvent] = []
        var start = body.startIndex
        while start < body.endIndex {
            let end = min(start + size, body.endIndex)
            do {
                pieces += try chunked.parse(body[start..<end])
            } catch {
                preconditionFailure("a stream accepted whole was refused in chunks of \(size)")
            }
            start = end
        }
        precondition(all == pieces, "chunks of \(size) changed the events")
        precondition(whole.lastEventID == chunked.lastEventID, "chunks of \(size) changed the last event ID")
        precondition(whole.retry == chunked.retry, "chunks of \(size) changed the retry time")
        for event in all { precondition(!event.event.isEmpty, "an event without a type") }
    }
}
