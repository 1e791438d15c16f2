import FoundationEssentials
import Synchronization

/// A request run by hand, as AFNetworking's tasks were: made idle, started with `resume()`,
/// suspended, resumed and cancelled at will, with its progress and its own events observable.
///
///     let task = try client.download("files/big.iso", to: destination)
///     task.downloadProgress.signal.observeValues { print($0.fraction ?? 0, $0.bytesPerSecond) }
///     task.resume()
///     task.suspend()                       // no bytes move; the idle timeout does not run
///     task.resume()
///     let response = try await task.response.value
///
/// A task is made without sending anything, and starts with `resume()` or, as Alamofire's
/// requests do, as soon as something subscribes to its `response`: awaiting the response of a
/// task nobody resumed does not wait forever. To hold a task back while subscribing, `suspend()`
/// it first; it then waits for `resume()`.
///
/// Unlike a request's producer, a task runs once: `response` replays its one outcome to every
/// subscriber.
public final class RequestTask: Sendable {
    private struct State {
        var phase = TaskState.created
        var run: (any Disposable)?
        var inFlightID: UInt64?
        var started: ContinuousClock.Instant?
        var finished = false
        /// `cancel()` came while the run was being started: `start()` disposes it.
        var cancelRequested = false
        /// Where this task's events go (the task's own observers, and the client's).
        var reporter: TaskReporter?
        /// What a download that did not finish left to resume it with.
        var resumeData: ResumeData?
    }

    /// The task's identifier, the same as in the client's `events`.
    public let id: TaskID
    /// The request as it was made.
    public let request: Request
    /// This task's lifecycle events (see `TaskEvent`).
    public let events: Signal<TaskEvent, Never>
    /// Bytes received so far, the total if known, and the throughput.
    public let downloadProgress: Property<TaskProgress>
    /// Bytes of the request body sent so far, the total if known, and the throughput.
    public let uploadProgress: Property<TaskProgress>
    /// Where the task is in its life.
    public let state: Property<TaskState>

    private let client: Client
    private let eventInput: Observer<TaskEvent, Never>
    private let download = MutableProperty(TaskProgress())
    private let upload = MutableProperty(TaskProgress())
    private let phase = MutableProperty(TaskState.created)
    private let outcome = MutableProperty<Result<Response, SluiceError>?>(nil)
    /// Suspends and resumes the transfer (internal: tests compare it with `state`).
    let control = TransferControl()
    private let inner = Lock(State())
    /// The download this task runs, if it is one (see `Client.download`).
    private let downloadPlan: DownloadPlan?

    init(client: Client, request: Request, downloadPlan: DownloadPlan? = nil) {
        self.client = client
        self.request = request
        self.downloadPlan = downloadPlan
        id = client.eventHub.makeTaskID()
        (events, eventInput) = Signal<TaskEvent, Never>.pipe()
        downloadProgress = download.readOnly
        uploadProgress = upload.readOnly
        state = phase.readOnly
    }

    /// The task's response, or its error, replayed to every subscriber; a cancelled task fails
    /// with `.cancelled`. Subscribing starts a task that was made and not yet resumed (one
    /// suspended before it started waits for `resume()`).
    public var response: SignalProducer<Response, SluiceError> {
        let replay = outcome.producer.compactMap { $0 }.take(first: 1).promoteError(SluiceError.self)
            .attemptMap { (result) throws(SluiceError) -> Response in try result.get() }
        return SignalProducer { [self] observer, lifetime in
            lifetime += replay.start(observer)
            if inner.withLock({ $0.phase == .created }) { resume() }
        }
    }

    /// For a download that was cancelled, failed or answered with an error status: what to
    /// resume it with (`Client.download(resuming:)`), when its temporary file holds bytes of a
    /// content the server identified (a strong `ETag` or `Last-Modified`); nil otherwise, and
    /// for any other task. Set before `response` delivers the task's outcome.
    public var resumeData: ResumeData? { inner.withLock { $0.resumeData } }

    /// Starts the task, or resumes it after `suspend()`.
    public func resume() {
        enum Step { case start, resume, none }
        let step = inner.withLock { s -> Step in
            switch s.phase {
            case .created:
                s.phase = .running
                s.started = .now
                return .start
            case .suspended where s.started == nil:
                // Suspended before it ever started (see `suspend()`).
                s.phase = .running
                s.started = .now
                return .start
            case .suspended:
                s.phase = .running
                return .resume
            default:
                return .none
            }
        }
        switch step {
        case .start:
            publishPhase()
            start()
        case .resume:
            publishPhase()
            // Reported before the transfer may move again: resumed, a transfer whose body had all
            // arrived meanwhile completed at once, and its completion, on the loop thread, ended
            // the task's events before this `resumed` was sent, which was then dropped.
            report(.resumed)
            // Under the lock, like `suspend()`'s, so the control sees the decisions in the order
            // they were made; unless a `suspend()` came in between, which then stands.
            inner.withLock { s in
                if s.phase == .running { control.resume() }
            }
        case .none: break
        }
    }

    /// Stops moving bytes until `resume()`. A task not yet started is held: subscribing to its
    /// `response` then does not start it. A task that has ended is left as it is.
    public func suspend() {
        let suspended = inner.withLock { s -> Bool in
            if s.phase == .created {
                s.phase = .suspended
                return true
            }
            guard s.phase == .running else { return false }
            s.phase = .suspended
            // Told while the lock is held: told after, a `resume()` on another thread could decide
            // in between, find the control running and leave it alone, and this suspend would then
            // pause the transfer of a task that says it runs, for good. (The control's lock and
            // the command queue's are taken inside this one; neither ever takes it.)
            control.suspend()
            return true
        }
        guard suspended else { return }
        publishPhase()
        report(.suspended)
    }

    /// Cancels the task: the transfer stops, `response` fails with `.cancelled`.
    public func cancel() {
        let (run, wasCreated) = inner.withLock { s -> ((any Disposable)?, Bool) in
            guard !s.finished, !s.phase.isFinished else { return (nil, false) }
            if s.phase == .created || (s.phase == .suspended && s.started == nil) {
                s.phase = .cancelled
                return (nil, true)
            }
            s.cancelRequested = true
            return (s.run, false)
        }
        if wasCreated { finish(.failure(SluiceError.noValue(.interrupted)), phase: .cancelled) }
        run?.dispose()
    }

    /// Reports to the task's observers and, when it watches, the client's `events`.
    private func report(_ kind: TaskEvent.Kind) {
        inner.withLock { $0.reporter }?.report(kind)
    }

    /// Publishes the task's phase as it is now as `state`, unless the task has ended (a late
    /// suspend or resume must not bring a finished task back; the end publishes itself). Reading
    /// the phase while publishing, instead of publishing the phase a call set, makes `state` end
    /// where the task is when `suspend()` and `resume()` race on two threads: whichever publishes
    /// last reads the last decision.
    private func publishPhase() {
        phase.modify { current in
            guard !current.isFinished else { return }
            let now = inner.withLock { $0.phase }
            if !now.isFinished { current = now }
        }
    }

    private func start() {
        let reporter = client.eventHub.reporter(for: request, taskID: id, taskOutput: eventInput)
        inner.withLock { $0.reporter = reporter }
        let downloadPlan = downloadPlan
        let progressWatch = events.observeValues { [weak self] event in
            // Sent from inside the delivery of the head that caused it: the signal queues it, and
            // delivers it right after.
            if let restart = downloadPlan?.observe(event.kind) { self?.report(.downloadRestarted(restart)) }
            self?.track(event.kind)
        }
        let inFlightID = client.inFlight.register(method: request.method, url: request.url) { [weak self] in
            self?.cancel()
        }
        let producer =
            downloadPlan.map {
                DownloadRun.producer(client: client, request: request, plan: $0, control: control, reporter: reporter)
            } ?? client.response(for: request, mode: .collected, control: control, reporter: reporter)
        let run = producer.start {
            [self] event in
            switch event {
            case .value(let response): finish(.success(response), phase: .completed)
            case .failed(let error): finish(.failure(error), phase: .failed)
            case .interrupted: finish(.failure(SluiceError.noValue(.interrupted)), phase: .cancelled)
            case .completed: break
            }
            if event.isTerminating {
                progressWatch.dispose()
                client.inFlight.remove(inFlightID)
            }
        }
        let cancelledMeanwhile = inner.withLock { s -> Bool in
            s.run = run
            s.inFlightID = inFlightID
            return s.cancelRequested || s.phase == .cancelled
        }
        if cancelledMeanwhile { run.dispose() }
    }

    private func finish(_ result: Result<Response, SluiceError>, phase final: TaskState) {
        // A download that did not put its file in place leaves resume data or nothing, before
        // anyone learns of the end.
        let resumeData = downloadPlan?.conclude()
        let first = inner.withLock { s -> Bool in
            guard !s.finished else { return false }
            s.resumeData = resumeData
            s.finished = true
            s.phase = final
            return true
        }
        guard first else { return }
        phase.modify { $0 = final }
        outcome.value = result
    }

    private func track(_ kind: TaskEvent.Kind) {
        let started = inner.withLock { $0.started } ?? .now
        let seconds = max((ContinuousClock.now - started).timeInterval, 0.000_001)
        switch kind {
        case .downloadProgress(let reported):
            let progress = downloadPlan.map { $0.progress(reported) } ?? reported
            download.value = TaskProgress(
                completed: progress.completed, expected: progress.expected,
                bytesPerSecond: Double(progress.completed) / seconds)
        case .uploadProgress(let progress):
            upload.value = TaskProgress(
                completed: progress.completed, expected: progress.expected,
                bytesPerSecond: Double(progress.completed) / seconds)
        default:
            break
        }
    }
}

extension Client {
    /// A task for `request`, made idle: `resume()`, or awaiting its `response`, sends it (see
    /// `RequestTask`).
    public func task(_ request: Request) -> RequestTask {
        RequestTask(client: self, request: request)
    }

    /// A task for `method path`, made idle, as `task(_:)` (see `RequestTask`); `modify` changes
    /// the request before it is sent (see `RequestModifier`).
    public func task(
        _ method: HTTPMethod, _ path: String, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        modify: RequestModifier? = nil
    ) throws(SluiceError) -> RequestTask {
        task(try makeRequest(method, path, parameters: parameters, headers: headers, modify: modify))
    }
}
