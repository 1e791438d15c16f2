import FoundationEssentials

/// Progress and outcome of a batch of requests (AFHTTPClient's `enqueueBatchOfHTTPRequestOperations:`).
public enum BatchEvent: Sendable {
    /// Another request finished; `finished` of `total` are done.
    case progress(finished: Int, total: Int)
    /// Every request finished; the results are in the order the requests were given.
    case finished([Result<Response, SluiceError>])
}

extension Client {
    /// Runs `requests` with at most `maxConcurrent` in flight, reporting progress as each finishes
    /// and every result, in order, at the end. A failed request does not stop the others; disposing
    /// the batch cancels the requests still running.
    public func batch(
        _ requests: [SignalProducer<Response, SluiceError>], maxConcurrent: Int = 4
    ) -> SignalProducer<BatchEvent, Never> {
        let total = requests.count
        let limit = max(1, maxConcurrent)
        return SignalProducer { observer, lifetime in
            guard total > 0 else {
                observer.send(value: .finished([]))
                observer.sendCompleted()
                return
            }
            let results = Lock([Result<Response, SluiceError>?](repeating: nil, count: total))
            let outcomes = SignalProducer<Int, Never>(values: Array(0..<total)).flatMap(.concurrent(limit: limit)) {
                index in
                Self.outcome(of: requests[index]).map { (index, $0) }
            }
            lifetime += outcomes.start { event in
                switch event {
                case .value(let (index, result)):
                    let finished = results.withLock { slots -> Int in
                        slots[index] = result
                        return slots.count { $0 != nil }
                    }
                    observer.send(value: .progress(finished: finished, total: total))
                case .completed:
                    observer.send(value: .finished(results.withLock { $0.compactMap { $0 } }))
                    observer.sendCompleted()
                case .interrupted:
                    observer.sendInterrupted()
                }
            }
        }
    }

    /// The one result of a request: its response, its failure, `.cancelled` if it was interrupted,
    /// or `.noValue` if it completed without a response.
    private static func outcome(
        of request: SignalProducer<Response, SluiceError>
    ) -> SignalProducer<Result<Response, SluiceError>, Never> {
        request.materialize()
            .compactMap { event -> Result<Response, SluiceError>? in
                switch event {
                case .value(let response): return .success(response)
                case .failed(let error): return .failure(error)
                case .interrupted:
                    return .failure(SluiceError(.cancelled, "The request was cancelled before it finished."))
                // Completed without a response (after one, `take(first:)` has ended the producer):
                // a result of its own, or the results would no longer line up with the requests.
                case .completed:
                    return .failure(SluiceError(.noValue, "The request completed without a response."))
                }
            }
            .take(first: 1)
    }
}
