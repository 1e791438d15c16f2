import FoundationEssentials
import Metrics
import Sluice
import Synchronization

/// Counts requests, errors and bytes and times requests, per host, through swift-metrics, for
/// whatever backend the application bootstrapped (Prometheus, StatsD, OpenTelemetry…).
///
/// Put it first in the chain, where it sees each request once, as the user made it (its retries
/// and redirects count as one request). The metrics, each with the dimension `server.address`:
///
/// - `sluice.requests` (counter): requests started;
/// - `sluice.errors` (counter, with `error.type`): requests that failed, by the error's code, or
///   answered with a 4xx or 5xx status, by the status;
/// - `sluice.request.duration` (timer): from the start to the end of the response body;
/// - `sluice.bytes.sent` and `sluice.bytes.received` (counters): body bytes of the last hop, as
///   libcurl counted them.
///
///     MetricsSystem.bootstrap(backend)  // once, at startup
///     let client = Client(interceptors: [MetricsInterceptor()])
///
/// With no factory given, it uses the bootstrapped one when each request starts; with none
/// bootstrapped, it passes requests straight on.
public struct MetricsInterceptor: Interceptor {
    /// The factory given, or nil for `MetricsSystem.factory`.
    public let factory: (any MetricsFactory)?
    private let instruments = HostInstruments()

    /// An interceptor that records through `factory`, or through the bootstrapped one.
    public init(factory: (any MetricsFactory)? = nil) {
        self.factory = factory
    }

    /// Measures `request` through the rest of `chain`.
    public func intercept(_ request: Request, chain: InterceptorChain) -> SignalProducer<Response, SluiceError> {
        let factory = self.factory ?? MetricsSystem.factory
        if factory is NOOPMetricsHandler { return chain.proceed(request) }
        let host = request.url.host ?? ""
        let instruments = self.instruments
        return SignalProducer { observer, lifetime in
            let started = ContinuousClock.now
            instruments.requests(host: host, factory: factory).increment()
            // The response, once there is one, and whether the request's end was recorded: it is
            // recorded once, at its terminal event or when the subscription ends first (an awaited
            // `value` ends it at the response, and the chain may then send nothing more).
            let state = Mutex<(response: Response?, recorded: Bool)>((nil, false))
            @Sendable func recordEnd(_ error: SluiceError?) {
                let (response, first) = state.withLock { s in
                    defer { s.recorded = true }
                    return (s.response, !s.recorded)
                }
                guard first else { return }
                if let error {
                    instruments.errors(host: host, type: error.code.name, factory: factory).increment()
                } else if response == nil {
                    // Ended before any response: the request was cancelled.
                    let cancelled = SluiceError.Code.cancelled.name
                    instruments.errors(host: host, type: cancelled, factory: factory).increment()
                    return
                }
                instruments.duration(host: host, factory: factory).recordNanoseconds(since: started)
                if let metrics = response.flatMap(Self.metrics(of:)) {
                    instruments.bytesSent(host: host, factory: factory).increment(by: metrics.bytesSent)
                    instruments.bytesReceived(host: host, factory: factory).increment(by: metrics.bytesReceived)
                }
            }
            lifetime += chain.proceed(request).start { event in
                switch event {
                case .value(let response):
                    state.withLock { $0.response = response }
                    if response.status >= 400 {
                        instruments.errors(host: host, type: String(response.status), factory: factory).increment()
                    }
                    observer.send(value: response)
                case .failed(let error):
                    recordEnd(error)
                    observer.send(error: error)
                case .completed:
                    recordEnd(nil)
                    observer.sendCompleted()
                case .interrupted:
                    recordEnd(nil)
                    observer.sendInterrupted()
                }
            }
            lifetime.observeEnded { recordEnd(nil) }
        }
    }

    /// The transfer's metrics: a collected response's own, a streamed one's once its body ended.
    private static func metrics(of response: Response) -> TransferMetrics? {
        if let metrics = response.metrics { return metrics }
        if case .streaming(let chunks) = response.content { return chunks.metrics }
        return nil
    }
}

extension Timer {
    /// Records the time since `start`.
    fileprivate func recordNanoseconds(since start: ContinuousClock.Instant) {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
