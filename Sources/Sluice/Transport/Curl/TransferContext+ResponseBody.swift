internal import CCurl
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

// A transfer's response body: into memory, to the output file or down the event stream, with
// its progress.
extension TransferContext {
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
    func isDue(_ next: inout Int64) -> Bool {
        guard progressNanoseconds > 0 else { return true }
        let now = Self.monotonicNanoseconds()
        guard now >= next else { return false }
        next = now + progressNanoseconds
        return true
    }

    /// Tells whoever follows the transfer's progress how much of the body has arrived.
    func reportDownload() {
        reportedReceived = received
        let progress = TransferEvent.downloadProgress(TransferProgress(completed: received, expected: expectedDownload))
        switch sink {
        case .events(let observer): observer.send(value: progress)
        case .response: monitor?(progress)
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
}
