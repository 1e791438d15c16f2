internal import CCurl
import Foundation
import Synchronization

/// The state of one transfer while libcurl runs it.
///
/// Lives on the transport's loop thread only, from the moment the loop picks the transfer up until
/// it is removed from the multi handle; libcurl's callbacks reach it through an `Unmanaged`
/// pointer passed as their user data, whose lifetime the loop's table of contexts guarantees.
final class TransferContext {
    let id: UInt64
    let request: Request
    let sink: TransferSink
    let token: TransferToken
    let easy: EasyHandle
    let startedAt: ContinuousClock.Instant

    // The mutable state is marked `@exclusivity(unchecked)`: it is only ever touched on the loop
    // thread, by plain reads and writes that cannot overlap, and the run-time exclusivity checks
    // (two calls into the Swift runtime per access) cost more than the parsing of a header line.
    @exclusivity(unchecked) var bodyReader: (any BodyReader)?
    @exclusivity(unchecked) var outputDescriptor: Int32 = -1
    @exclusivity(unchecked) var abortReason: AbortReason?
    @exclusivity(unchecked) var lastActivity: ContinuousClock.Instant
    @exclusivity(unchecked) var isPaused = false

    @exclusivity(unchecked) private var parser = HeaderBlockParser()
    @exclusivity(unchecked) private var headerBytes = 0
    @exclusivity(unchecked) private var headSent = false
    /// The head, kept for the response when the sink takes one (`TransferSink.response`).
    @exclusivity(unchecked) private var head: ResponseHead?
    /// The body collected for the response when the sink takes one and it goes to memory.
    @exclusivity(unchecked) private var body = Data()
    @exclusivity(unchecked) private var received: Int64 = 0
    @exclusivity(unchecked) private var expectedDownload: Int64?
    @exclusivity(unchecked) private var sent: Int64 = 0
    private let expectedUpload: Int64?

    init(
        id: UInt64, request: Request, sink: TransferSink, token: TransferToken, easy: EasyHandle
    ) {
        self.id = id
        self.request = request
        self.sink = sink
        self.token = token
        self.easy = easy
        startedAt = .now
        lastActivity = startedAt
        expectedUpload = request.body.knownLength
    }

    var userData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> TransferContext {
        Unmanaged<TransferContext>.fromOpaque(pointer!).takeUnretainedValue()
    }

    var hasResponseHead: Bool { headSent }

    // MARK: Response headers

    /// One header line (status line, field or the blank line that ends a block); returns the
    /// number of bytes consumed, or 0 to make libcurl abort.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        lastActivity = .now
        headerBytes += bytes.count
        let limit = request.options.maximumHeaderSize
        if headerBytes > limit {
            abortReason = .headersTooLarge(limit: limit)
            return 0
        }
        switch parser.read(bytes.assumingMemoryBound(to: UInt8.self)) {
        case .status:
            headSent = false
        case .end:
            // End of a header block; 1xx blocks (100 Continue) are followed by the real one.
            let status = parser.status
            if status >= 200 || status == 101 { sendHeadIfNeeded() }
        case .field:
            break
        }
        return bytes.count
    }

    func sendHeadIfNeeded() {
        guard !headSent else { return }
        headSent = true
        expectedDownload = parser.contentLength
        let head = ResponseHead(status: parser.status, headers: HTTPHeaders(parser.fields), httpVersion: parser.version)
        switch sink {
        case .events(let observer): observer.send(value: .head(head))
        case .response: self.head = head
        }
    }

    // MARK: Response body

    /// A chunk of the decoded body; returns the bytes consumed, or 0 to make libcurl abort.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        lastActivity = .now
        if !headSent { sendHeadIfNeeded() }
        let limit = request.options.maximumBodySize
        if received + Int64(bytes.count) > limit {
            abortReason = .bodyTooLarge(limit: limit)
            return 0
        }
        received += Int64(bytes.count)
        if outputDescriptor >= 0 {
            guard writeAll(bytes) else { return 0 }
        }
        switch sink {
        case .events(let observer):
            if outputDescriptor < 0 { observer.send(value: .body(Data(bytes))) }
            observer.send(value: .downloadProgress(TransferProgress(completed: received, expected: expectedDownload)))
        case .response:
            if outputDescriptor < 0 { collect(bytes) }
        }
        return bytes.count
    }

    /// Appends a chunk to the response's body; room for the announced length is made at the first.
    private func collect(_ bytes: UnsafeRawBufferPointer) {
        if body.isEmpty, let expected = expectedDownload, expected > bytes.count {
            // Bounded by the body limit (a longer body aborts) and by a sane first reservation.
            body.reserveCapacity(Int(min(expected, request.options.maximumBodySize, Self.largestReservation)))
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
        lastActivity = .now
        guard let reader = bodyReader else { return 0 }
        do {
            let count = try reader.read(into: buffer)
            if count > 0 {
                sent += Int64(count)
                if case .events(let observer) = sink {
                    observer.send(value: .uploadProgress(TransferProgress(completed: sent, expected: expectedUpload)))
                }
            }
            return count
        } catch {
            abortReason = .bodyRead("\(error)")
            return Int(SLUICE_READFUNC_ABORT)
        }
    }

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

    /// Delivers the outcome of a transfer that finished well (after its head was sent).
    func succeed(_ metrics: TransferMetrics) {
        switch sink {
        case .events(let observer):
            observer.send(value: .completed(metrics))
            observer.sendCompleted()
        case .response(let observer):
            guard let head else {
                observer.send(error: SluiceError(.protocolError, "The transfer completed without a response head."))
                return
            }
            var fileURL: URL?
            if case .file(let url) = request.options.destination { fileURL = url }
            let body = self.body
            self.body = Data()
            observer.send(
                value: Response(
                    status: head.status, headers: head.headers, httpVersion: head.httpVersion, body: body,
                    fileURL: fileURL, metrics: metrics, request: request))
            observer.sendCompleted()
        }
    }

    /// What libcurl measured.
    func metrics() -> TransferMetrics {
        func duration(_ info: CURLINFO) -> Duration { .microseconds(easy.info(int64: info)) }
        var metrics = TransferMetrics()
        metrics.nameLookup = duration(CURLINFO_NAMELOOKUP_TIME_T)
        metrics.connect = duration(CURLINFO_CONNECT_TIME_T)
        metrics.tlsHandshake = duration(CURLINFO_APPCONNECT_TIME_T)
        metrics.timeToFirstByte = duration(CURLINFO_STARTTRANSFER_TIME_T)
        metrics.total = duration(CURLINFO_TOTAL_TIME_T)
        metrics.redirect = duration(CURLINFO_REDIRECT_TIME_T)
        metrics.bytesSent = sent
        metrics.bytesReceived = received
        metrics.httpVersion = parser.version
        metrics.reusedConnection = easy.info(CURLINFO_NUM_CONNECTS) == 0
        if let ip = easy.info(string: CURLINFO_PRIMARY_IP), !ip.isEmpty {
            let port = easy.info(CURLINFO_PRIMARY_PORT)
            // A byte search: `String.contains(_:)` goes through Foundation's string search here.
            metrics.remoteAddress = ip.utf8.contains(UInt8(ascii: ":")) ? "[\(ip)]:\(port)" : "\(ip):\(port)"
        }
        return metrics
    }

    /// Whether a connection had been made when the transfer ended (to tell connect timeouts apart).
    var wasConnected: Bool {
        easy.info(int64: CURLINFO_CONNECT_TIME_T) > 0 || easy.info(CURLINFO_NUM_CONNECTS) == 0 && headSent
    }

    func closeOutput() {
        if outputDescriptor >= 0 {
            close(outputDescriptor)
            outputDescriptor = -1
        }
    }
}

/// Reads the header lines of a response, as libcurl's header callback hands them over, one at a time.
///
/// A value type that a transfer keeps in one stored property, so a line costs one access to the
/// transfer's state; the bytes are read through a plain buffer pointer (a `Slice` of a raw buffer
/// takes generic, slow paths), and only the field names and values become strings.
struct HeaderBlockParser {
    /// What a line was.
    enum Line {
        /// The status line, which starts a new block (a 1xx block is followed by another).
        case status
        /// A header field (or a line that is not one, which is ignored).
        case field
        /// The blank line that ends a block.
        case end
    }

    /// The status code of the current block (0 if it could not be read).
    private(set) var status = 0
    /// The HTTP version of the current block.
    private(set) var version = HTTPVersion.http1_1
    /// The fields of the current block, gathered in an array with room reserved up front
    /// (appending to `HTTPHeaders` grows its storage several times per response).
    private(set) var fields: [HTTPHeaders.Field] = []
    /// The first Content-Length of the current block, read as the line arrives.
    private(set) var contentLength: Int64?

    /// Reads one line, its CR LF included.
    mutating func read(_ bytes: UnsafeBufferPointer<UInt8>) -> Line {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        if end == 0 { return .end }
        if end >= 5 && bytes[0] == 0x48 && bytes[1] == 0x54 && bytes[2] == 0x54 && bytes[3] == 0x50 && bytes[4] == 0x2F
        {
            readStatusLine(UnsafeBufferPointer(rebasing: bytes[0..<end]))
            return .status
        }
        guard let colon = bytes[0..<end].firstIndex(of: UInt8(ascii: ":")) else { return .field }
        // Trimmed and decoded as bytes: Foundation's `trimmingCharacters(in:)` goes through
        // NSString and cost more than all of libcurl's work for a small response.
        var valueStart = colon + 1
        while valueStart < end, Self.isOptionalWhitespace(bytes[valueStart]) { valueStart += 1 }
        var valueEnd = end
        while valueEnd > valueStart, Self.isOptionalWhitespace(bytes[valueEnd - 1]) { valueEnd -= 1 }
        let name = UnsafeBufferPointer(rebasing: bytes[0..<colon])
        let value = String(decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<valueEnd]), as: UTF8.self)
        if contentLength == nil, Self.isContentLength(name) { contentLength = Int64(value) }
        fields.append(HTTPHeaders.Field(name: String(decoding: name, as: UTF8.self), value: value))
        return .field
    }

    /// Starts a block: `HTTP/1.1 200 OK` gives the version and the status; the reason is ignored.
    private mutating func readStatusLine(_ line: UnsafeBufferPointer<UInt8>) {
        fields.removeAll(keepingCapacity: true)
        fields.reserveCapacity(16)
        contentLength = nil
        // The version, then the status: words separated by runs of spaces.
        var index = 0
        while index < line.count && line[index] != 0x20 { index += 1 }
        let versionWord = UnsafeBufferPointer(rebasing: line[0..<index])
        while index < line.count && line[index] == 0x20 { index += 1 }
        let statusStart = index
        while index < line.count && line[index] != 0x20 { index += 1 }
        version = Self.version(versionWord)
        status = Self.integer(UnsafeBufferPointer(rebasing: line[statusStart..<index])) ?? 0
    }

    /// The version a word that starts with `HTTP/` names: HTTP/1.0, HTTP/2 (or 2.0), HTTP/3, and
    /// HTTP/1.1 for anything else. Compared byte by byte: `elementsEqual` with a string's UTF-8
    /// view goes through generic code that cost more than the rest of the status line.
    private static func version(_ word: UnsafeBufferPointer<UInt8>) -> HTTPVersion {
        let one = UInt8(ascii: "1")
        let two = UInt8(ascii: "2")
        let three = UInt8(ascii: "3")
        let dot = UInt8(ascii: ".")
        let zero = UInt8(ascii: "0")
        switch word.count {
        case 6:
            if word[5] == two { return .http2 }
            if word[5] == three { return .http3 }
        case 8 where word[6] == dot && word[7] == zero:
            if word[5] == one { return .http1_0 }
            if word[5] == two { return .http2 }
        default:
            break
        }
        return .http1_1
    }

    /// A decimal integer with an optional sign, as `Int(_: String)` reads it; nil if the bytes
    /// are not one or it overflows.
    private static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            negative = first == UInt8(ascii: "-")
            index = 1
        }
        guard index < bytes.count else { return nil }
        var result = 0
        while index < bytes.count {
            let digit = Int(bytes[index]) &- 0x30
            guard digit >= 0 && digit <= 9 else { return nil }
            let (shifted, overflow) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) =
                negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflow && !overflow2 else { return nil }
            result = sum
            index += 1
        }
        return result
    }

    /// Whether a header name is Content-Length, in any case, compared as bytes (cheaper than a
    /// lookup in the finished `HTTPHeaders`).
    private static func isContentLength(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.count == 14 else { return false }
        var index = 0
        for lower in "content-length".utf8 {
            let byte = name[index]
            // Setting bit 5 lowercases an ASCII letter; the '-' must match as it is.
            let isLetter = lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
            guard byte == lower || (isLetter && byte | 0x20 == lower) else { return false }
            index += 1
        }
        return true
    }

    /// HTTP's optional whitespace around a field value (RFC 9110 §5.6.3): space and horizontal tab.
    private static func isOptionalWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }
}

// libcurl's callbacks: plain C functions that find their context through the user-data pointer.

let headerCallback: curl_write_callback = { pointer, size, count, userData in
    TransferContext.from(userData).receiveHeaderLine(UnsafeRawBufferPointer(start: pointer, count: size * count))
}

let writeCallback: curl_write_callback = { pointer, size, count, userData in
    TransferContext.from(userData).receiveBody(UnsafeRawBufferPointer(start: pointer, count: size * count))
}

// The read and seek callbacks stay installed on a pooled handle; libcurl calls them only for
// requests that send a body, which set their user data (a handle's is nil in between).

let readCallback: curl_read_callback = { pointer, size, count, userData in
    guard let userData else { return Int(SLUICE_READFUNC_ABORT) }
    return TransferContext.from(userData).readBody(
        into: UnsafeMutableRawBufferPointer(start: pointer, count: size * count))
}

let seekCallback: curl_seek_callback = { userData, offset, origin in
    guard let userData, origin == SEEK_SET else { return SLUICE_SEEKFUNC_CANTSEEK }
    return TransferContext.from(userData).rewindBody(to: Int64(offset))
}

/// Shared between a started transfer's producer and the loop: tells the producer's cleanup that
/// the loop already finished the transfer, so no cancel command needs to be sent.
final class TransferToken: Sendable {
    private let state = Mutex(false)

    var isFinished: Bool { state.withLock { $0 } }

    func markFinished() { state.withLock { $0 = true } }
}
