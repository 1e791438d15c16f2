internal import CCurl
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

// A transfer's response head: its header lines as libcurl hands them over, read into the head,
// and where the body goes once the head is final.
extension TransferContext {
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
                if easy.isHTTPS { watchTLSEnd(status: status) }
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
            !parser.hasContentEncoding || !request.options.decompress, hasBody(status: status)
        else { return nil }
        return length
    }

    /// Whether a final response with `status` to this request's method has a body at all: not the
    /// answer to a HEAD, a 204 or a 304.
    func hasBody(status: Int) -> Bool {
        status != 204 && status != 304 && request.method != .head
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
        case .response:
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
    func chooseBodyDestination(status: Int) {
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
}
