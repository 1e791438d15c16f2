internal import CCurl
internal import CTLSEnd
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The state of one transfer while libcurl runs it, and the transfer's token (see `TransferToken`):
/// one object per request for the producer's side and the loop's.
///
/// Made on the caller's thread when the transfer's producer starts, and handed to the loop with
/// the start command. Its mutable state is the loop thread's only, from the moment the loop picks
/// the transfer up until it is removed from the multi handle; libcurl's callbacks reach it through
/// an unretained pointer (the easy handle's `transfer` for the header, write and prerequest
/// callbacks, their own user data for the read and seek callbacks), whose lifetime the loop's table
/// of contexts guarantees.
///
/// The work is in extensions by concern: the response's head (`TransferContext+ResponseHead`) and
/// body (`+ResponseBody`), the request's body and attempts (`+RequestBody`), the end of the
/// transfer (`+Completion`); libcurl's callbacks are in `TransferCallbacks.swift`. The state they
/// share is internal for them; nothing else writes it.
final class TransferContext: TransferToken, @unchecked Sendable {
    // `@unchecked Sendable`: other threads touch only the token's part (atomic flags and `let`s);
    // the `let`s below are set before the start command hands the context to the loop (the command
    // queue's lock orders that), and every `var` is the loop thread's alone.
    let request: Request
    /// The request's URL as text (see `PreparedRequest.urlText`).
    let urlText: String
    let sink: TransferSink
    /// The monitor of a collected response's sink (`TransferSink.response`), if any, kept apart:
    /// taking it out of the sink for each head and progress event copied it (a retain and a
    /// release each time).
    let monitor: TransferMonitor?
    /// Suspends and resumes the transfer (a task's, a stream's), if any; bound when it starts.
    let control: TransferControl?
    /// Whether a start has taken this context (see `forThisStart()`).
    private let isTaken = Atomic(false)
    /// The handle libcurl runs the transfer on, from `begin` until the loop releases the transfer.
    @exclusivity(unchecked) var easy: EasyHandle!
    /// The TLS configuration for the request's host (`RequestOptions.tlsForHosts`, else `tls`).
    /// Resolved at the first read, on the loop thread, by an https transfer (configuring the
    /// handle, then checking the peer's chain at each attempt): a copy made for every transfer
    /// retained and released its certificates and pins for plain http too.
    lazy var tls: TLSConfiguration = {
        let options = request.options
        if options.tlsForHosts.isEmpty { return options.tls }
        return options.tls.resolved(for: request.url.host(), in: options.tlsForHosts)
    }()
    /// The jar whose store the transfer uses, told when a response sets cookies; nil for none.
    let cookieJar: CookieJar?
    /// Whether the response's head set cookies (looked for only with a jar).
    @exclusivity(unchecked) var receivedCookies = false
    /// The request's limits, read once: a callback reads them for every line and chunk.
    let maximumHeaderSize: Int
    let maximumBodySize: Int64
    /// `RequestOptions.maximumDownloadSize`, `Int64.max` for none.
    let maximumDownloadSize: Int64
    /// `RequestOptions.progressInterval` in nanoseconds (0: every chunk is reported).
    let progressNanoseconds: Int64

    // The mutable state is marked `@exclusivity(unchecked)`: it is only ever touched on the loop
    // thread, by plain reads and writes that cannot overlap, and the run-time exclusivity checks
    // (two calls into the Swift runtime per access) cost more than the parsing of a header line.
    @exclusivity(unchecked) var bodyReader: (any BodyReader)? {
        // A reader of an async sequence is filled by a task that holds it: one let go of without
        // being closed kept that task, and the sequence, waiting forever.
        willSet { (bodyReader as? AsyncSequenceBodyReader)?.close() }
    }
    @exclusivity(unchecked) var outputDescriptor: Int32 = -1
    @exclusivity(unchecked) var abortReason: AbortReason?
    /// Counts the callbacks that moved bytes. The loop compares it with what it saw at its previous
    /// idle check instead of the callbacks reading the clock: that was one `clock_gettime` per
    /// header line and per chunk, more than the rest of a header line's work.
    /// Starts at 1, so that the loop's first idle check after the transfer began counts it as active
    /// then, and sets `lastActivity` (reading the clock for every new transfer cost more).
    @exclusivity(unchecked) var activity: UInt64 = 1
    /// The value of `activity` at the loop's latest idle check, and when it last changed.
    @exclusivity(unchecked) var activitySeen: UInt64 = 0
    @exclusivity(unchecked) var lastActivity: ContinuousClock.Instant
    /// The bytes moved on the transfer's connection when the loop last looked, while its callbacks
    /// were silent (see `CurlLoop.connectionMoved`).
    @exclusivity(unchecked) var connectionBytesSeen: UInt64 = 0
    @exclusivity(unchecked) var isPaused = false
    /// The sending side paused because an async body had nothing ready (see `readBody`).
    @exclusivity(unchecked) var awaitingBody = false
    /// Whether the handle must not run another transfer (see `CurlLoop.finish`).
    @exclusivity(unchecked) var isHandleSpent = false
    /// The length of a body handed to libcurl whole, with the head (0: none, or read in pieces).
    @exclusivity(unchecked) var inlineBodyLength: Int64 = 0
    /// How many times libcurl set out to send the request (see `beginAttempt`).
    @exclusivity(unchecked) var attempts = 0
    /// Whether a header line arrived since the latest attempt began: libcurl retries by itself
    /// after a dead connection only when nothing at all did.
    @exclusivity(unchecked) var answered = false
    /// What the connection's TLS negotiated, read before the request is sent (libcurl gives the
    /// connection's TLS object only while the transfer has it).
    @exclusivity(unchecked) var tlsSession: TLSSession?
    /// How the TLS connection of a body read to the close ended (see `watchTLSEnd`); nil for any
    /// other transfer.
    @exclusivity(unchecked) var tlsEndWatch: OpaquePointer?

    @exclusivity(unchecked) var parser = HeaderBlockParser()
    @exclusivity(unchecked) var headerBytes = 0
    @exclusivity(unchecked) var headSent = false
    /// The head, kept for the response when the sink takes one (`TransferSink.response`).
    @exclusivity(unchecked) var head: ResponseHead?
    /// The body collected for the response when the sink takes one and it goes to memory.
    @exclusivity(unchecked) var body = Data()
    @exclusivity(unchecked) var received: Int64 = 0
    /// Whether the final response's body goes to the output file (else to memory or the stream),
    /// and the most bytes it may have: decided when its head arrives (see `chooseBodyDestination`).
    @exclusivity(unchecked) var bodyToFile = false
    @exclusivity(unchecked) var bodyLimit: Int64 = 0
    /// When the next progress event may go (libcurl's clock), and what the latest ones said: the
    /// last byte is reported at the end if a throttled chunk carried it.
    @exclusivity(unchecked) var nextDownloadProgress: Int64 = 0
    @exclusivity(unchecked) var nextUploadProgress: Int64 = 0
    @exclusivity(unchecked) var reportedReceived: Int64 = -1
    @exclusivity(unchecked) var reportedSent: Int64 = -1
    @exclusivity(unchecked) var expectedDownload: Int64?
    @exclusivity(unchecked) var sent: Int64 = 0
    /// Whether the request has a body, and the body's length when known (for a file, one `stat`):
    /// read once here, as each read of `request.body` copies it.
    let hasBody: Bool
    let expectedUpload: Int64?
    /// When the transfer began, on libcurl's clock (see `monotonicNanoseconds`), for a request with
    /// a total timeout (see `totalTimeoutExpired`); 0 for any other (no clock read).
    @exclusivity(unchecked) var startNanoseconds: Int64 = 0

    /// A transfer of `request` whose cancel command goes to `queue`; `subscriber` is the observer
    /// of a collected response, which the token delivers to; `control` is bound to the transfer
    /// when it starts.
    convenience init(
        id: UInt64, request: PreparedRequest, sink: TransferSink, queue: CommandQueue,
        subscriber: Observer<Response, SluiceError>? = nil, control: TransferControl? = nil
    ) {
        self.init(
            id: id, request: request.request, urlText: request.urlText, sink: sink, queue: queue,
            subscriber: subscriber, control: control)
    }

    private init(
        id: UInt64, request: Request, urlText: String, sink: TransferSink, queue: CommandQueue,
        subscriber: Observer<Response, SluiceError>?, control: TransferControl?
    ) {
        self.urlText = urlText
        self.request = request
        self.sink = sink
        if case .response(let monitor) = sink { self.monitor = monitor } else { monitor = nil }
        self.control = control
        cookieJar = request.options.usesCookies ? request.options.cookieJar?.jar : nil
        maximumHeaderSize = request.options.maximumHeaderSize
        maximumBodySize = request.options.maximumBodySize
        maximumDownloadSize = request.options.maximumDownloadSize ?? .max
        let interval = request.options.progressInterval
        progressNanoseconds =
            interval == RequestOptions.defaultProgressInterval
            ? RequestOptions.defaultProgressNanoseconds : Self.nanoseconds(interval)
        bodyLimit = maximumBodySize
        lastActivity = Self.unstarted
        if case .empty = request.body {
            hasBody = false
            expectedUpload = 0
        } else {
            hasBody = true
            expectedUpload = request.body.knownLength
        }
        super.init(id: id, queue: queue, subscriber: subscriber)
    }

    /// This context for its producer's first start, which takes it; a fresh one, with an id of its
    /// own, for any later start. (A context made with its producer is what the producer's closure
    /// captures, alone: no context of the closure's own per request.)
    func forThisStart() -> TransferContext {
        if !isTaken.exchange(true, ordering: .acquiringAndReleasing) { return self }
        let fresh = TransferContext(
            id: queue.makeID(), request: request, urlText: urlText, sink: sink, queue: queue, subscriber: nil,
            control: control)
        fresh.isTaken.store(true, ordering: .relaxed)
        return fresh
    }

    /// What `lastActivity` holds until `begin` sets it.
    private static let unstarted = ContinuousClock.now

    /// The loop picks the transfer up: it runs on `easy`; `placeholder` is any past instant,
    /// replaced at the loop's next idle check.
    func begin(on easy: EasyHandle, placeholder: ContinuousClock.Instant) {
        self.easy = easy
        lastActivity = placeholder
        if request.options.timeout != nil { startNanoseconds = Self.monotonicNanoseconds() }
    }

    var userData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> TransferContext {
        Unmanaged<TransferContext>.fromOpaque(pointer!).takeUnretainedValue()
    }

    /// Runs `body` with the context behind a callback's user-data pointer, without retaining it:
    /// the loop's table keeps every context of a handle in the multi handle alive, and libcurl
    /// calls back only for those. (A retain and a release per call were two atomic operations for
    /// every header line and body chunk.)
    @inline(__always)
    static func with<R>(_ pointer: UnsafeMutableRawPointer, _ body: (TransferContext) -> R) -> R {
        Unmanaged<TransferContext>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    var hasResponseHead: Bool { headSent }

    deinit {
        if let tlsEndWatch { sluice_tls_end_watch_release(tlsEndWatch) }
        (bodyReader as? AsyncSequenceBodyReader)?.close()
    }
}
