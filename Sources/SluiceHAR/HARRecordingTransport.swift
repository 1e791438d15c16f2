import FoundationEssentials
import Sluice
import Synchronization

/// Sends through another transport and records each transfer into a `HARRecorder`.
struct HARRecordingTransport: Transport {
    let inner: any Transport
    let recorder: HARRecorder

    var taskExecutor: (any TaskExecutor)? { inner.taskExecutor }

    func transfer(_ request: PreparedRequest) -> SignalProducer<TransferEvent, SluiceError> {
        transfer(request, control: nil)
    }

    /// The inner transfer's events, passed on as they come, noted on the way.
    func transfer(_ request: PreparedRequest, control: TransferControl?) -> SignalProducer<TransferEvent, SluiceError> {
        let inner = self.inner
        let recorder = self.recorder
        return SignalProducer { observer, lifetime in
            let entry = HAREntryBuilder(request: request.request, recorder: recorder)
            lifetime += inner.transfer(request, control: control).start { event in
                switch event {
                case .value(let transferEvent):
                    switch transferEvent {
                    case .head(let head): entry.received(head)
                    case .body(let chunk): entry.received(chunk)
                    case .completed(let metrics): entry.finish(metrics: metrics, error: nil)
                    case .uploadProgress, .downloadProgress: break
                    }
                case .failed(let error): entry.finish(metrics: nil, error: error)
                case .completed, .interrupted: break
                }
                observer.send(event)
            }
        }
    }

    /// The inner transport's collected response (it may collect more cheaply than from events).
    func response(for request: PreparedRequest, control: TransferControl?, monitor: TransferMonitor?)
        -> SignalProducer<Response, SluiceError>
    {
        let inner = self.inner
        let recorder = self.recorder
        return SignalProducer { observer, lifetime in
            let entry = HAREntryBuilder(request: request.request, recorder: recorder)
            lifetime += inner.response(for: request, control: control, monitor: monitor).start { event in
                switch event {
                case .value(let response):
                    entry.received(response.head)
                    entry.received(response.body)
                    entry.finish(metrics: response.metrics, error: nil)
                case .failed(let error): entry.finish(metrics: nil, error: error)
                case .completed, .interrupted: break
                }
                observer.send(event)
            }
        }
    }
}
