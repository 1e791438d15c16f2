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
    let observer: Observer<TransferEvent, SluiceError>
    let token: TransferToken
    let easy: EasyHandle
    let startedAt: ContinuousClock.Instant

    var bodyReader: (any BodyReader)?
    var outputDescriptor: Int32 = -1
    var abortReason: AbortReason?
    var lastActivity: ContinuousClock.Instant
    var isPaused = false

    private var status = 0
    private var version = HTTPVersion.http1_1
    /// The fields of the current header block, gathered in an array with room reserved up front
    /// (appending to `HTTPHeaders` grows its storage several times per response).
    private var fields: [HTTPHeaders.Field] = []
    private var headerBytes = 0
    private var headSent = false
    private var received: Int64 = 0
    private var expectedDownload: Int64?
    /// The first Content-Length of the current header block, read as the line arrives.
    private var contentLength: Int64?
    private var sent: Int64 = 0
    private let expectedUpload: Int64?

    init(
        id: UInt64, request: Request, observer: Observer<TransferEvent, SluiceError>, token: TransferToken,
        easy: EasyHandle
    ) {
        self.id = id
        self.request = request
        self.observer = observer
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
        if headerBytes > request.options.maximumHeaderSize {
            abortReason = .headersTooLarge(limit: request.options.maximumHeaderSize)
            return 0
        }
        var line = bytes[...]
        while let last = line.last, last == 0x0A || last == 0x0D { line = line.dropLast() }
        if line.isEmpty {
            // End of a header block; 1xx blocks (100 Continue) are followed by the real one.
            if status >= 200 || status == 101 { sendHeadIfNeeded() }
            return bytes.count
        }
        if line.starts(with: "HTTP/".utf8) {
            parseStatusLine(line)
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            // Trimmed and decoded as bytes: Foundation's `trimmingCharacters(in:)` goes through
            // NSString and cost more than all of libcurl's work for a small response.
            var value = line[(colon + 1)...]
            while let first = value.first, Self.isOptionalWhitespace(first) { value = value.dropFirst() }
            while let last = value.last, Self.isOptionalWhitespace(last) { value = value.dropLast() }
            let name = line[line.startIndex..<colon]
            let decodedValue = Self.decode(value)
            if contentLength == nil, Self.isContentLength(name) { contentLength = Int64(decodedValue) }
            fields.append(HTTPHeaders.Field(name: Self.decode(name), value: decodedValue))
        }
        return bytes.count
    }

    /// Whether a header name is Content-Length, in any case, compared as bytes (cheaper than a
    /// lookup in the finished `HTTPHeaders`).
    private static func isContentLength(_ name: Slice<UnsafeRawBufferPointer>) -> Bool {
        guard name.count == 14 else { return false }
        var index = name.startIndex
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

    /// Decodes header bytes as UTF-8 (invalid sequences repaired) from contiguous memory, which
    /// takes `String`'s fast path; a `Slice` of a raw buffer would take the generic, slow one.
    private static func decode(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes).assumingMemoryBound(to: UInt8.self), as: UTF8.self)
    }

    private func parseStatusLine(_ line: Slice<UnsafeRawBufferPointer>) {
        fields.removeAll(keepingCapacity: true)
        fields.reserveCapacity(16)
        contentLength = nil
        headSent = false
        let parts = line.split(separator: UInt8(ascii: " "), maxSplits: 2)
        let versionText = parts.first.map(Self.decode) ?? ""
        switch versionText {
        case "HTTP/1.0": version = .http1_0
        case "HTTP/2", "HTTP/2.0": version = .http2
        case "HTTP/3": version = .http3
        default: version = .http1_1
        }
        status = parts.count > 1 ? Int(Self.decode(parts[1])) ?? 0 : 0
    }

    func sendHeadIfNeeded() {
        guard !headSent else { return }
        headSent = true
        expectedDownload = contentLength
        observer.send(value: .head(ResponseHead(status: status, headers: HTTPHeaders(fields), httpVersion: version)))
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
        } else {
            observer.send(value: .body(Data(bytes)))
        }
        observer.send(value: .downloadProgress(TransferProgress(completed: received, expected: expectedDownload)))
        return bytes.count
    }

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
                observer.send(value: .uploadProgress(TransferProgress(completed: sent, expected: expectedUpload)))
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
        metrics.httpVersion = version
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

// libcurl's callbacks: plain C functions that find their context through the user-data pointer.

let headerCallback: curl_write_callback = { pointer, size, count, userData in
    TransferContext.from(userData).receiveHeaderLine(UnsafeRawBufferPointer(start: pointer, count: size * count))
}

let writeCallback: curl_write_callback = { pointer, size, count, userData in
    TransferContext.from(userData).receiveBody(UnsafeRawBufferPointer(start: pointer, count: size * count))
}

let readCallback: curl_read_callback = { pointer, size, count, userData in
    TransferContext.from(userData).readBody(into: UnsafeMutableRawBufferPointer(start: pointer, count: size * count))
}

let seekCallback: curl_seek_callback = { userData, offset, origin in
    origin == SEEK_SET ? TransferContext.from(userData).rewindBody(to: Int64(offset)) : SLUICE_SEEKFUNC_CANTSEEK
}

/// Shared between a started transfer's producer and the loop: tells the producer's cleanup that
/// the loop already finished the transfer, so no cancel command needs to be sent.
final class TransferToken: Sendable {
    private let state = Mutex(false)

    var isFinished: Bool { state.withLock { $0 } }

    func markFinished() { state.withLock { $0 = true } }
}
