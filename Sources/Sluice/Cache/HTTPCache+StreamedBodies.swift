import FoundationEssentials

extension HTTPCache {
    /// `response`, a streaming response to `request`, with its body stored as it arrives, when the
    /// cache may store it (RFC 9111 §3); nil when it is not streaming or may not be stored.
    ///
    /// The entry is stored once the body has ended well. Nothing is stored when the reader lets go
    /// of the body before its end, when the transfer fails, or when the body grows past the cache's
    /// capacity (what arrived is dropped then, so a long stream is never held in memory for the
    /// cache). The reader reads the same chunks, held back as the stream would hold them.
    func storingAsRead(_ response: Response, for request: Request, requestTime: Date, responseTime: Date)
        -> Response?
    {
        guard case .streaming(let stream) = response.content, response.fileURL == nil,
            let entry = Self.entry(
                for: response, body: Data(), request: request, requestTime: requestTime, responseTime: responseTime)
        else { return nil }
        let store = self.store
        let limit = store.capacity
        // nil once the body can no longer be stored.
        let gathered = Lock<Data?>(Data())
        let teed = stream.tapped { event in
            switch event {
            case .value(let chunk):
                gathered.withLock { body in
                    guard let count = body?.count else { return }
                    if count + chunk.count > limit { body = nil } else { body?.append(chunk) }
                }
            case .completed:
                guard let body = gathered.withLock({ $0.take() }) else { return }
                var complete = entry
                complete.body = body
                store.store(complete)
            case .failed, .interrupted:
                gathered.withLock { $0 = nil }
            }
        }
        return response.replacingContent(.streaming(teed))
    }
}
