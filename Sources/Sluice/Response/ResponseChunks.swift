import FoundationEssentials

/// The body of a streaming response: chunks as the transfer delivers them, read once.
///
/// Until a reader starts `chunks`, arriving chunks wait here; when more than `bufferLimit` bytes
/// wait, the transfer is suspended (through its `TransferControl`) and resumed when the reader
/// starts, so nothing is buffered without bound. Once started, chunks go to the reader as they
/// arrive, in order, and the stream ends when the transfer ends (or fails as it failed).
///
/// An interceptor that drops a response calls `Response.discardBody()`: the chunks are then let go
/// as they arrive, and the transfer is never held back for them.
public final class ResponseChunks: Sendable {
    private struct State {
        var waiting: [Data] = []
        var waitingBytes = 0
        /// How the transfer ended, once it has: nil for success.
        var end: SluiceError??
        var metrics: TransferMetrics?
        var reader: Observer<Data, SluiceError>?
        var isRead = false
        var isDiscarded = false
        /// A thread is handing waiting chunks to the reader: others leave theirs in `waiting`,
        /// so that the reader receives them in order and one at a time.
        var isDelivering = false
        var suspendedTransfer = false
        var isEndDelivered = false

        /// Makes the caller the one thread that delivers, unless another already is: only the
        /// caller that gets true may call `deliver()`, so two loops never send at once.
        mutating func claimDelivery() -> Bool {
            guard !isDelivering else { return false }
            isDelivering = true
            return true
        }
    }

    private let state = Lock(State())
    private let control: TransferControl?
    private let bufferLimit: Int
    /// Run when the reader lets go of the stream (see `tapped(_:)`).
    private let onDiscard: (@Sendable () -> Void)?

    /// A stream fed by a transfer that `control` can suspend (nil: it cannot be held back, and
    /// chunks wait without bound until read).
    public init(control: TransferControl?, bufferLimit: Int = 4 << 20) {
        self.control = control
        self.bufferLimit = max(1, bufferLimit)
        onDiscard = nil
    }

    private init(control: TransferControl?, bufferLimit: Int, onDiscard: @escaping @Sendable () -> Void) {
        self.control = control
        self.bufferLimit = bufferLimit
        self.onDiscard = onDiscard
    }

    /// A stream of the same chunks that shows each of them, and how the body ended, to `tap` as
    /// they pass (the HTTP cache stores a body this way while its reader reads it).
    ///
    /// This stream is read at once into the new one, which holds the transfer back as this one
    /// would: its chunks wait there until its reader starts, and past the buffer limit the
    /// transfer is suspended. When the new stream's reader lets go of it (or it is discarded),
    /// this one is let go of too, and `tap` sees `interrupted`.
    func tapped(_ tap: @escaping @Sendable (Event<Data, SluiceError>) -> Void) -> ResponseChunks {
        let reading = SerialDisposable()
        let copy = ResponseChunks(control: control, bufferLimit: bufferLimit, onDiscard: { reading.dispose() })
        reading.inner = chunks.start { [self] event in
            tap(event)
            switch event {
            case .value(let chunk): copy.append(chunk)
            case .failed(let error): copy.fail(error)
            case .completed: copy.finish(metrics: metrics ?? TransferMetrics())
            case .interrupted: copy.fail(SluiceError(.cancelled, "The response body was let go of."))
            }
        }
        return copy
    }

    /// The transfer's metrics, once the body has ended.
    public var metrics: TransferMetrics? { state.withLock { $0.metrics } }

    /// The chunks, from the first: can be started once (a second start fails with
    /// `.bodyAlreadyRead`); disposing it stops reading, and the chunks after are dropped.
    public var chunks: SignalProducer<Data, SluiceError> {
        SignalProducer { [self] observer, lifetime in
            let start = state.withLock { s -> (accepted: Bool, mustDeliver: Bool) in
                guard !s.isRead, !s.isDiscarded else { return (false, false) }
                s.isRead = true
                s.reader = observer
                return (true, s.claimDelivery())
            }
            guard start.accepted else {
                observer.send(error: SluiceError(.bodyAlreadyRead, "The response body was already read or discarded."))
                return
            }
            lifetime.observeEnded { [self] in discard() }
            if start.mustDeliver { deliver() }
        }
    }

    // MARK: The transfer's side

    /// A chunk arrived.
    public func append(_ chunk: Data) {
        let mustDeliver = state.withLock { s -> Bool in
            guard !s.isDiscarded, s.end == nil else { return false }
            s.waiting.append(chunk)
            s.waitingBytes += chunk.count
            if s.reader == nil {
                if s.waitingBytes > bufferLimit, !s.suspendedTransfer, let control {
                    s.suspendedTransfer = true
                    control.suspend()
                }
                return false
            }
            return s.claimDelivery()
        }
        if mustDeliver { deliver() }
    }

    /// The body ended well; `metrics` describe the transfer.
    public func finish(metrics: TransferMetrics) {
        end(nil, metrics: metrics)
    }

    /// The body broke off with `error`.
    public func fail(_ error: SluiceError) {
        end(error, metrics: nil)
    }

    private func end(_ error: SluiceError?, metrics: TransferMetrics?) {
        let mustDeliver = state.withLock { s -> Bool in
            guard s.end == nil else { return false }
            s.end = .some(error)
            s.metrics = metrics
            return s.reader != nil && s.claimDelivery()
        }
        if mustDeliver { deliver() }
    }

    // MARK: The reader's side

    /// Drops what waits and what is still to come, and lets the transfer run.
    func discard() {
        let resume = state.withLock { s -> Bool in
            s.isDiscarded = true
            s.reader = nil
            s.waiting = []
            s.waitingBytes = 0
            defer { s.suspendedTransfer = false }
            return s.suspendedTransfer
        }
        if resume { control?.resume() }
        onDiscard?()
    }

    /// Hands what waits to the reader, in order, until nothing does; called only by the thread that
    /// claimed the delivery (see `State.claimDelivery`), which gives it up here.
    private func deliver() {
        var resume = false
        while true {
            let next = state.withLock { s -> (Observer<Data, SluiceError>, [Data], SluiceError??)? in
                guard let reader = s.reader, !s.isEndDelivered else {
                    s.isDelivering = false
                    return nil
                }
                if s.suspendedTransfer {
                    s.suspendedTransfer = false
                    resume = true
                }
                let chunks = s.waiting
                s.waiting = []
                s.waitingBytes = 0
                var end: SluiceError?? = nil
                if let ended = s.end {
                    end = .some(ended)
                    s.isEndDelivered = true
                }
                guard !chunks.isEmpty || end != nil else {
                    s.isDelivering = false
                    return nil
                }
                return (reader, chunks, end)
            }
            if resume {
                resume = false
                control?.resume()
            }
            guard let (reader, chunks, end) = next else { return }
            for chunk in chunks { reader.send(value: chunk) }
            if let end {
                if let error = end { reader.send(error: error) } else { reader.sendCompleted() }
            }
        }
    }
}
