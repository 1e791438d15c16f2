internal import CCurl
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
final class TransferContext: TransferToken, @unchecked Sendable {
    // `@unchecked Sendable`: other threads touch only the token's part (atomic flags and `let`s);
    // the `let`s below are set before the start command hands the context to the loop (the command
    // queue's lock orders that), and every `var` is the loop thread's alone.
    let request: Request
    /// The request's URL as text (see `PreparedRequest.urlText`).
    let urlText: String
    let sink: TransferSink
    /// Suspends and resumes the transfer (a task's, a stream's), if any; bound when it starts.
    let control: TransferControl?
    /// Whether a start has taken this context (see `forThisStart()`).
    private let isTaken = Atomic(false)
    /// The handle libcurl runs the transfer on, from `begin` until the loop releases the transfer.
    @exclusivity(unchecked) var easy: EasyHandle!
    /// The TLS configuration for the request's host (`RequestOptions.tlsForHosts`, else `tls`).
    let tls: TLSConfiguration
    /// The jar whose store the transfer uses, told when a response sets cookies; nil for none.
    let cookieJar: CookieJar?
    /// Whether the response's head set cookies (looked for only with a jar).
    @exclusivity(unchecked) private(set) var receivedCookies = false
    /// The request's limits, read once: a callback reads them for every line and chunk.
    private let maximumHeaderSize: Int
    private let maximumBodySize: Int64
    /// `RequestOptions.maximumDownloadSize`, `Int64.max` for none.
    private let maximumDownloadSize: Int64
    /// `RequestOptions.progressInterval` in nanoseconds (0: every chunk is reported).
    private let progressNanoseconds: Int64

    // The mutable state is marked `@exclusivity(unchecked)`: it is only ever touched on the loop
    // thread, by plain reads and writes that cannot overlap, and the run-time exclusivity checks
    // (two calls into the Swift runtime per access) cost more than the parsing of a header line.
    @exclusivity(unchecked) var bodyReader: (any BodyReader)?
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
    @exclusivity(unchecked) private var attempts = 0
    /// Whether a header line arrived since the latest attempt began: libcurl retries by itself
    /// after a dead connection only when nothing at all did.
    @exclusivity(unchecked) private var answered = false
    /// What the connection's TLS negotiated, read before the request is sent (libcurl gives the
    /// connection's TLS object only while the transfer has it).
    @exclusivity(unchecked) private var tlsSession: TLSSession?

    @exclusivity(unchecked) private var parser = HeaderBlockParser()
    @exclusivity(unchecked) private var headerBytes = 0
    @exclusivity(unchecked) private var headSent = false
    /// The head, kept for the response when the sink takes one (`TransferSink.response`).
    @exclusivity(unchecked) private var head: ResponseHead?
    /// The body collected for the response when the sink takes one and it goes to memory.
    @exclusivity(unchecked) private var body = Data()
    @exclusivity(unchecked) private var received: Int64 = 0
    /// Whether the final response's body goes to the output file (else to memory or the stream),
    /// and the most bytes it may have: decided when its head arrives (see `chooseBodyDestination`).
    @exclusivity(unchecked) private var bodyToFile = false
    @exclusivity(unchecked) private var bodyLimit: Int64 = 0
    /// When the next progress event may go (libcurl's clock), and what the latest ones said: the
    /// last byte is reported at the end if a throttled chunk carried it.
    @exclusivity(unchecked) private var nextDownloadProgress: Int64 = 0
    @exclusivity(unchecked) private var nextUploadProgress: Int64 = 0
    @exclusivity(unchecked) private var reportedReceived: Int64 = -1
    @exclusivity(unchecked) private var reportedSent: Int64 = -1
    @exclusivity(unchecked) private var expectedDownload: Int64?
    @exclusivity(unchecked) private var sent: Int64 = 0
    /// Whether the request has a body, and the body's length when known (for a file, one `stat`):
    /// read once here, as each read of `request.body` copies it.
    let hasBody: Bool
    let expectedUpload: Int64?
    /// When the transfer began, on libcurl's clock (see `monotonicNanoseconds`), for a request with
    /// a total timeout (see `totalTimeoutExpired`); 0 for any other (no clock read).
    @exclusivity(unchecked) private var startNanoseconds: Int64 = 0

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
        self.control = control
        tls =
            request.options.tlsForHosts.isEmpty
            ? request.options.tls
            : request.options.tls.resolved(for: request.url.host(), in: request.options.tlsForHosts)
        cookieJar = request.options.usesCookies ? request.options.cookieJar?.jar : nil
        maximumHeaderSize = request.options.maximumHeaderSize
        maximumBodySize = request.options.maximumBodySize
        maximumDownloadSize = request.options.maximumDownloadSize ?? .max
        let interval = request.options.progressInterval.components
        progressNanoseconds = max(0, interval.seconds * 1_000_000_000 + interval.attoseconds / 1_000_000_000)
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

    // MARK: Response headers

    /// One header line (status line, field or the blank line that ends a block); returns the
    /// number of bytes consumed, or 0 to make libcurl abort.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        activity &+= 1
        answered = true
        // A body sent with the head: what of it has gone out by now (an early answer, such as a
        // 417 or 413 to `Expect: 100-continue`, can come before any of it).
        if sent < inlineBodyLength { inlineBodySent() }
        headerBytes += bytes.count
        if headerBytes > maximumHeaderSize {
            abortReason = .headersTooLarge(limit: maximumHeaderSize)
            return 0
        }
        switch parser.read(bytes.assumingMemoryBound(to: UInt8.self)) {
        case .status:
            headSent = false
        case .end:
            // End of a header block; 1xx blocks (100 Continue) are followed by the real one.
            let status = parser.status
            if status == 101 {
                // No request of Sluice's asks to switch protocols (HTTP/2 without TLS is by prior
                // knowledge): libcurl would wait on the switched connection until a timeout.
                abortReason = .invalidHead("it switches protocols (101), which the request did not ask for")
                return 0
            }
            if status >= 200 {
                // Through a proxy, a 407 is the proxy's refusal, not the origin's answer.
                if status == 407, let proxy = request.options.proxy {
                    abortReason = .proxyRefused(proxy: proxy.description, hadCredentials: proxy.credentials != nil)
                    return 0
                }
                chooseBodyDestination(status: status)
                if let announced = announcedBodyPastLimit(status: status) {
                    abortReason = .announcedBodyTooLarge(length: announced, limit: bodyLimit)
                    return 0
                }
                guard sendHeadIfNeeded() else { return 0 }
            }
        case .field:
            // Looked for in the line as it passes: asking the head's fields afterwards made them
            // be parsed, ~1,800 instructions for a response nobody else reads the fields of.
            if cookieJar != nil && !receivedCookies && Self.isSetCookie(bytes) { receivedCookies = true }
        case .invalid:
            // libcurl would frame the body its own way: nothing of it may be taken as the body.
            abortReason = .invalidHead(parser.problem ?? "its framing is invalid")
            return 0
        }
        return bytes.count
    }

    /// Whether a header line is a Set-Cookie field (the name in any case).
    private static func isSetCookie(_ line: UnsafeRawBufferPointer) -> Bool {
        let name: StaticString = "set-cookie:"
        guard line.count > name.utf8CodeUnitCount else { return false }
        for index in 0..<name.utf8CodeUnitCount {
            let byte = line[index]
            // Capital letters as small ones; '-' and ':' exactly.
            let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            if folded != name.utf8Start[index] { return false }
        }
        return true
    }

    /// The Content-Length of a final head when its body is certain to pass the body limit: the
    /// body is not decoded (a coded body's length says nothing of what it decodes to) and there is
    /// one (not a HEAD, a 204 or a 304). Failing at the head spares reading up to the limit.
    private func announcedBodyPastLimit(status: Int) -> Int64? {
        guard let length = parser.contentLength, length > bodyLimit,
            !parser.hasContentEncoding || !request.options.decompress,
            status != 204, status != 304, request.method != .head
        else { return nil }
        return length
    }

    /// Sends the final head once; returns false, with the reason set, when the output file could
    /// not be made ready for its body.
    @discardableResult
    func sendHeadIfNeeded() -> Bool {
        guard !headSent else { return true }
        headSent = true
        expectedDownload = parser.contentLength
        let head = ResponseHead(status: parser.status, headers: parser.takeHeaders(), httpVersion: parser.version)
        switch sink {
        case .events(let observer): observer.send(value: .head(head))
        case .response(let monitor):
            self.head = head
            monitor?(.head(head))
        }
        // Positioned after the head is reported: whoever counts a download's bytes from its
        // events (`DownloadPlan`) learns of a restart before the file is cut, and never counts
        // bytes the file no longer holds as the previous content's.
        guard positionOutput(status: head.status) else { return false }
        if bodyToFile {
            // 0%, with the total, as soon as it is known: a download's progress shows from the start.
            reportDownload()
        }
        return true
    }

    /// Where the final response's body goes, and its limit: a partial file takes a success's body
    /// only (see `RequestOptions.BodyDestination.partialFile`).
    private func chooseBodyDestination(status: Int) {
        guard outputDescriptor >= 0 else {
            bodyToFile = false
            bodyLimit = maximumBodySize
            return
        }
        bodyToFile = request.options.destination.fileURL(status: status) != nil
        bodyLimit = bodyToFile ? maximumDownloadSize : maximumBodySize
    }

    /// Makes a partial file ready for a successful response's body: a 206 goes after the bytes
    /// it already holds, anything else replaces them. (A file opened for `.file` was truncated.)
    private func positionOutput(status: Int) -> Bool {
        guard bodyToFile, case .partialFile(_, let offset) = request.options.destination else { return true }
        let keep = status == 206 ? offset : 0
        if ftruncate(outputDescriptor, off_t(keep)) != 0 || lseek(outputDescriptor, off_t(keep), SEEK_SET) < 0 {
            abortReason = .fileWrite(String(cString: strerror(errno)))
            return false
        }
        return true
    }

    // MARK: Response body

    /// A chunk of the decoded body; returns the bytes consumed, or 0 to make libcurl abort.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        activity &+= 1
        if !headSent {
            chooseBodyDestination(status: parser.status)
            guard sendHeadIfNeeded() else { return 0 }
        }
        if received + Int64(bytes.count) > bodyLimit {
            abortReason = .bodyTooLarge(limit: bodyLimit)
            return 0
        }
        received += Int64(bytes.count)
        if bodyToFile {
            guard writeAll(bytes) else { return 0 }
        } else {
            switch sink {
            case .events(let observer): observer.send(value: .body(Data(bytes)))
            case .response: collect(bytes)
            }
        }
        if received == expectedDownload || isDue(&nextDownloadProgress) { reportDownload() }
        return bytes.count
    }

    /// Whether a progress event may go now (at most one per `progressInterval`); sets the time of
    /// the next. One clock read per chunk: a chunk is up to 512 KiB, a read ~20 ns.
    @inline(__always)
    private func isDue(_ next: inout Int64) -> Bool {
        guard progressNanoseconds > 0 else { return true }
        let now = Self.monotonicNanoseconds()
        guard now >= next else { return false }
        next = now + progressNanoseconds
        return true
    }

    /// Tells whoever follows the transfer's progress how much of the body has arrived.
    private func reportDownload() {
        reportedReceived = received
        let progress = TransferEvent.downloadProgress(TransferProgress(completed: received, expected: expectedDownload))
        switch sink {
        case .events(let observer): observer.send(value: progress)
        case .response(let monitor): monitor?(progress)
        }
    }

    /// Appends a chunk to the response's body; room for the announced length is made at the first.
    private func collect(_ bytes: UnsafeRawBufferPointer) {
        if body.isEmpty, let expected = expectedDownload, expected > bytes.count {
            // Bounded by the body limit (a longer body aborts) and by a sane first reservation.
            body.reserveCapacity(Int(min(expected, maximumBodySize, Self.largestReservation)))
        }
        body.append(bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// The most memory reserved for a body before it arrives.
    private static let largestReservation: Int64 = 64 << 20

    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = write(outputDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                abortReason = .fileWrite(String(cString: strerror(errno)))
                return false
            }
            offset += written
        }
        return true
    }

    // MARK: Request body

    /// Fills libcurl's upload buffer; returns the bytes written, 0 at the end, or an abort code.
    func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        activity &+= 1
        guard let reader = bodyReader else { return 0 }
        do {
            let count: Int
            if let fed = reader as? AsyncSequenceBodyReader {
                // Nothing ready: the sending side pauses until the reader wakes it (`bodyReady`).
                let queue = self.queue
                let id = self.id
                switch try fed.read(into: buffer, wake: { queue.send(.bodyReady(id)) }) {
                case .bytes(let copied): count = copied
                case .waiting:
                    awaitingBody = true
                    return Int(SLUICE_READFUNC_PAUSE)
                }
            } else {
                count = try reader.read(into: buffer)
            }
            if count > 0 {
                sent += Int64(count)
                if sent == expectedUpload || isDue(&nextUploadProgress) { reportUpload() }
            }
            return count
        } catch {
            abortReason = .bodyRead("\(error)")
            return Int(SLUICE_READFUNC_ABORT)
        }
    }

    /// Counts and reports what libcurl sent of the body it holds (no read callback counts it).
    private func inlineBodySent() {
        let uploaded = min(easy.info(int64: CURLINFO_SIZE_UPLOAD_T), inlineBodyLength)
        guard uploaded > sent else { return }
        sent = uploaded
        reportUpload()
    }

    /// Tells whoever follows the transfer's progress how much of the body has gone out.
    private func reportUpload() {
        reportedSent = sent
        switch sink {
        case .events(let observer):
            observer.send(value: .uploadProgress(TransferProgress(completed: sent, expected: expectedUpload)))
        case .response(let monitor):
            monitor?(.uploadProgress(TransferProgress(completed: sent, expected: expectedUpload)))
        }
    }

    /// libcurl is about to send the request, on a new or a reused connection; returns whether it
    /// may. Another attempt after one that got no answer at all is libcurl retrying by itself after
    /// the connection died: refused for a non-idempotent method, whose first attempt may have
    /// reached the server (a body libcurl holds in memory is sent again without the seek callback's
    /// consent). One after an answer is a retry the server asked for, such as after a 417 to
    /// `Expect: 100-continue`, which read no body: allowed.
    func beginAttempt() -> Int32 {
        if easy.isHTTPS { tlsSession = PeerChainCheck.session(on: easy) }
        if tls.checksPeerChain, easy.isHTTPS,
            let refusal = PeerChainCheck.refusal(of: tls, on: easy, host: request.url.host() ?? "")
        {
            abortReason = .peerRefused(refusal)
            return SLUICE_PREREQFUNC_ABORT
        }
        attempts += 1
        let previousWasAnswered = answered
        answered = false
        guard attempts > 1, !previousWasAnswered, !request.method.isIdempotent else { return SLUICE_PREREQFUNC_OK }
        abortReason = .notSentAgain
        return SLUICE_PREREQFUNC_ABORT
    }

    /// Whether libcurl set out to send the request at least once: a later failure to connect is
    /// its own retry, after the request may have reached the server.
    var wasSent: Bool { attempts > 0 }

    /// Rewinds the body to its start, which libcurl asks for before re-sending it on a new
    /// connection. Refused for non-idempotent methods, so a POST is never sent twice.
    func rewindBody(to offset: Int64) -> Int32 {
        guard offset == 0, request.method.isIdempotent else { return SLUICE_SEEKFUNC_CANTSEEK }
        do {
            bodyReader = try Self.makeReader(for: request.body)
            sent = 0
            return SLUICE_SEEKFUNC_OK
        } catch {
            return SLUICE_SEEKFUNC_CANTSEEK
        }
    }

    static func makeReader(for body: RequestBody) throws -> (any BodyReader)? {
        switch body {
        case .empty: return nil
        case .data(let data): return DataBodyReader(data)
        case .file(let url): return try FileBodyReader(url: url)
        case .stream(let provider): return try provider.makeReader()
        }
    }

    // MARK: Completion

    /// Delivers the outcome of a transfer that finished well (after its head was sent). The
    /// metrics are moved into the response, not copied: a copy retains each of their strings.
    func succeed(_ metrics: consuming TransferMetrics) {
        // 100%: the last bytes are reported even when a throttled chunk carried them.
        if reportedSent >= 0, reportedSent != sent { reportUpload() }
        if received > 0, reportedReceived != received { reportDownload() }
        switch sink {
        case .events(let observer):
            observer.send(value: .completed(consume metrics))
            observer.sendCompleted()
        case .response:
            guard let head else {
                deliver(.failure(SluiceError(.protocolError, "The transfer completed without a response head.")))
                return
            }
            let fileURL = bodyToFile ? request.options.destination.openedFile : nil
            let body = self.body
            self.body = Data()
            deliver(
                .success(
                    Response(
                        status: head.status, headers: head.headers, httpVersion: head.httpVersion, body: body,
                        fileURL: fileURL, metrics: consume metrics, request: request)))
        }
    }

    /// What libcurl measured; the remote address's text comes from `addresses` when it is the
    /// previous transfer's.
    func metrics(addresses: inout RemoteAddressCache) -> TransferMetrics {
        func duration(_ info: CURLINFO) -> Duration { .microseconds(easy.info(int64: info)) }
        var metrics = TransferMetrics()
        metrics.reusedConnection = easy.info(CURLINFO_NUM_CONNECTS) == 0
        metrics.nameLookup = duration(CURLINFO_NAMELOOKUP_TIME_T)
        // On a reused connection libcurl reports both as zero (nothing was connected): not asked.
        if !metrics.reusedConnection {
            metrics.connect = duration(CURLINFO_CONNECT_TIME_T)
            metrics.tlsHandshake = duration(CURLINFO_APPCONNECT_TIME_T)
        }
        metrics.timeToFirstByte = duration(CURLINFO_STARTTRANSFER_TIME_T)
        metrics.total = duration(CURLINFO_TOTAL_TIME_T)
        // `redirect` stays zero: libcurl follows no redirects (the redirect interceptor does).
        if sent < inlineBodyLength { inlineBodySent() }
        metrics.bytesSent = sent
        metrics.bytesReceived = received
        metrics.httpVersion = parser.version
        if let ip = easy.info(cString: CURLINFO_PRIMARY_IP), ip.pointee != 0 {
            metrics.remoteAddress = addresses.address(ip: ip, port: easy.info(CURLINFO_PRIMARY_PORT))
        }
        if let tlsSession {
            metrics.tlsVersion = tlsSession.version.map { String(cString: $0) }
            metrics.tlsCipher = tlsSession.cipher.map { String(cString: $0) }
            metrics.alpnProtocol = tlsSession.alpn
        }
        return metrics
    }

    /// Whether the total timeout had expired when libcurl ended the transfer with
    /// CURLE_OPERATION_TIMEDOUT, which it reports for both of its timers: the connect timeout, which
    /// runs only while a new connection is made (resolving, connecting, the TLS handshake), and the
    /// total timeout, from the start of the transfer. Whether a connection existed tells them apart
    /// only in part: libcurl reports no connect time for a reused connection, a total timeout can
    /// fire while connecting, and libcurl may connect again after a reused connection died. The
    /// times cannot mislead: libcurl fires the total timeout only once its time since the transfer
    /// began reaches it, and this transfer's time, begun before libcurl's and read after libcurl
    /// gave up, is at least that. When it is shorter, the connect timeout fired.
    var totalTimeoutExpired: Bool {
        guard let total = request.options.timeout else { return false }
        // libcurl counts whole milliseconds (at least 1), and its difference of two times may be
        // up to 1 ms more than what passed: a total timeout it fired may read a little short here.
        let limit = max(1, total.wholeMilliseconds) - 2
        return (Self.monotonicNanoseconds() - startNanoseconds) / 1_000_000 >= limit
    }

    /// Nanoseconds of CLOCK_MONOTONIC, the clock libcurl measures its timeouts with.
    private static func monotonicNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    func closeOutput() {
        if outputDescriptor >= 0 {
            close(outputDescriptor)
            outputDescriptor = -1
        }
    }
}

// libcurl's callbacks: plain C functions that find their context through the user-data pointer.

// The header, write and prerequest callbacks get the easy handle (see `EasyHandle.transfer`);
// libcurl calls them only for a handle in the multi handle, which has a transfer.

let headerCallback: curl_write_callback = { pointer, size, count, userData in
    TransferContext.with(EasyHandle.transfer(behind: userData!)!) {
        $0.receiveHeaderLine(UnsafeRawBufferPointer(start: pointer, count: size * count))
    }
}

let writeCallback: curl_write_callback = { pointer, size, count, userData in
    TransferContext.with(EasyHandle.transfer(behind: userData!)!) {
        $0.receiveBody(UnsafeRawBufferPointer(start: pointer, count: size * count))
    }
}

// The read and seek callbacks stay installed on a pooled handle; libcurl calls them only for
// requests that send a body, which set their user data to the context (a handle's is nil in
// between).

let readCallback: curl_read_callback = { pointer, size, count, userData in
    guard let userData else { return Int(SLUICE_READFUNC_ABORT) }
    return TransferContext.with(userData) {
        $0.readBody(into: UnsafeMutableRawBufferPointer(start: pointer, count: size * count))
    }
}

let prerequestCallback: curl_prereq_callback = { userData, _, _, _, _ in
    guard let userData, let transfer = EasyHandle.transfer(behind: userData) else { return SLUICE_PREREQFUNC_OK }
    return TransferContext.with(transfer) { $0.beginAttempt() }
}

let seekCallback: curl_seek_callback = { userData, offset, origin in
    guard let userData, origin == SEEK_SET else { return SLUICE_SEEKFUNC_CANTSEEK }
    return TransferContext.with(userData) { $0.rewindBody(to: Int64(offset)) }
}
