import FoundationEssentials
import Synchronization

/// One run of a request through a client's chain, put together as a response: the parts gathered
/// from the chain's transfer events, and where the response goes, in one object.
final class ChainResponseRun: Sendable {
    private let parts = Mutex(ResponseParts())
    private let request: Request
    private let exchange: Exchange
    private let reporter: TaskReporter?
    private let aggregator: MetricsAggregator
    private let downstream: Observer<Response, SluiceError>

    init(
        request: Request, exchange: Exchange, reporter: TaskReporter?, aggregator: MetricsAggregator,
        downstream: Observer<Response, SluiceError>
    ) {
        self.request = request
        self.exchange = exchange
        self.reporter = reporter
        self.aggregator = aggregator
        self.downstream = downstream
    }

    /// The observer of the chain's events (a closure capturing only the run needs no allocation
    /// of its own).
    var observer: Observer<TransferEvent, SluiceError> {
        Observer { [self] event in receive(event) }
    }

    /// Gathers a transfer event; sends the response once the transfer has completed, counts it in
    /// the client's metrics and reports it to the task's observers.
    func receive(_ event: Event<TransferEvent, SluiceError>) {
        guard case .value(let transferEvent) = event else {
            // After a failure to put the response together, the stream has ended already.
            if parts.withLock({ $0.failed }) { return }
            switch event {
            case .failed(let error):
                aggregator.record(url: exchange.lastSentRequest?.url ?? request.url, response: nil)
                reporter?.complete(TaskCompletion(response: nil, error: error))
                downstream.send(error: error)
            case .interrupted:
                reporter?.cancelled()
                downstream.sendInterrupted()
            case .completed: downstream.sendCompleted()
            case .value: break  // taken by the guard
            }
            return
        }
        // The response's request is the one the final hop sent (after redirects).
        let outcome = parts.withLock { (parts) -> Result<Response, SluiceError>? in
            if parts.failed { return nil }
            guard let metrics = parts.add(transferEvent) else { return nil }
            if let collected = exchange.takeCollectedResponse() {
                // Handed over (see `Exchange.Delivery.handedOver`): the transport's response to the
                // request it was given, which is the one the final hop sent.
                return .success(collected)
            }
            do throws(SluiceError) {
                return .success(try parts.response(for: exchange.lastSentRequest ?? request, metrics: metrics))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case nil: return
        case .success(var response):
            response.reporter = reporter
            aggregator.record(url: response.request.url, response: response)
            downstream.send(value: response)
            reporter?.responseDelivered(response)
        case .failure(let error):
            reporter?.complete(TaskCompletion(response: nil, error: error))
            downstream.send(error: error)
        }
    }
}
