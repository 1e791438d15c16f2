import FoundationEssentials
import Synchronization

// The client's end of the chain: hands the chain's response to the caller, collecting a streaming
// body first when the caller wants it whole, counts it in the client's metrics, and reports how the
// request's task ended (when somebody watches it).

extension Exchange {
    /// The observer of the chain's response (a closure capturing only the run needs no allocation
    /// of its own).
    var observer: Observer<Response, SluiceError> {
        Observer { [self] event in receive(event) }
    }

    private func receive(_ event: Event<Response, SluiceError>) {
        if ended.load(ordering: .relaxed) { return }
        switch event {
        case .value(let response):
            // The kind of body is read where it lies: a tuple of it and the mode copied the body
            // (a retain and a release of its bytes).
            if case .collected = response.content {
                deliver(response, completesTask: true)
                return
            }
            switch mode {
            case .streaming:
                open.withLock { $0 = response }
                deliver(response, completesTask: false)
            case .collected:
                // An interceptor of the user's answered with a streaming body: read it whole.
                open.withLock { $0 = response }
                lifetime += response.collected().start { [self] event in
                    switch event {
                    case .value(let whole):
                        open.withLock { $0 = nil }
                        deliver(whole, completesTask: true)
                    case .failed(let error): fail(error)
                    case .interrupted: interrupt()
                    case .completed: complete()
                    }
                }
            }
        case .failed(let error): fail(error)
        case .interrupted: interrupt()
        case .completed:
            // A body still being collected completes the caller's stream itself.
            let streamed = open.withLock { open -> Response? in
                guard case .streaming = mode else { return open }
                defer { open = nil }
                return open
            }
            switch mode {
            case .collected where streamed != nil: return
            case .streaming where streamed != nil:
                reporter?.complete(TaskCompletion(response: streamed, error: nil))
            default: break
            }
            complete()
        }
    }

    /// `response` is handed over (`consuming`): it is changed in place, and when nobody watches the
    /// task it is moved into the event that goes downstream instead of copied into it.
    private func deliver(_ response: consuming Response, completesTask: Bool) {
        let reporter = reporter
        if completesTask { response.outcomeObserver = reporter }
        aggregator.record(response)
        let downstream = downstream.withLock { $0 }
        if completesTask, let reporter {
            downstream?.send(value: response)
            reporter.responseDelivered(response)
        } else if let downstream {
            downstream.send(.value(consume response))
        }
    }

    private func fail(_ error: SluiceError) {
        guard !ended.exchange(true, ordering: .relaxed) else { return }
        if open.withLock({ $0 }) == nil {
            aggregator.recordFailure(url: lastSentRequest?.url ?? originalRequest.url)
        }
        reporter?.complete(TaskCompletion(response: nil, error: error))
        downstream.withLock { $0.take() }?.send(error: error)
    }

    private func interrupt() {
        guard !ended.exchange(true, ordering: .relaxed) else { return }
        reporter?.cancelled()
        downstream.withLock { $0.take() }?.sendInterrupted()
    }

    private func complete() {
        guard !ended.exchange(true, ordering: .relaxed) else { return }
        downstream.withLock { $0.take() }?.sendCompleted()
    }
}
