import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One download's files, and what its responses said about the bytes its temporary file holds:
/// the task feeds it its events (`observe`), the run asks it where to resume and puts the file in
/// place, and a download that ends any other way leaves resume data or nothing (`conclude`).
///
/// The byte count comes from the events, which the transport sends after writing the bytes they
/// count (and a head before it cuts the file for a new body): the file always holds at least the
/// bytes counted, and the ones past them are cut when the download resumes.
final class DownloadPlan: Sendable {
    let destination: URL
    let temporaryFile: URL
    let expectedDigest: ExpectedDigest?
    /// The resume data the download started from, if any.
    let resumedFrom: ResumeData?

    fileprivate struct State {
        /// The URL of the latest request (a redirect's target after a redirect).
        var url: URL
        /// The first byte the current request asks for.
        var offset: Int64 = 0
        /// What identifies the content the file holds.
        var validator: DownloadValidator?
        /// The bytes the file held before the current response's body; those it holds now.
        var base: Int64 = 0
        var bytes: Int64 = 0
        /// Whether the current response's body goes into the file where it belongs.
        var counting = false
        /// The length of the whole content, when known.
        var total: Int64?
        /// The download started (`start()`): before, the resume data it came from still stands.
        var started = false
        /// The file was put in place, or the download concluded without it.
        var ended = false
    }

    private let state: Mutex<State>

    init(url: URL, destination: URL, expectedDigest: ExpectedDigest?, resumedFrom: ResumeData?) {
        self.destination = destination
        self.expectedDigest = expectedDigest
        self.resumedFrom = resumedFrom
        temporaryFile = resumedFrom?.temporaryFile ?? Self.temporaryFile(beside: destination)
        state = Mutex(State(url: url))
    }

    /// A file in the destination's directory (so that the final rename stays on one file system
    /// and is atomic), hidden, named after the destination, with a random part.
    static func temporaryFile(beside destination: URL) -> URL {
        let name = destination.lastPathComponent
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        return destination.deletingLastPathComponent().appending(
            path: ".\(name).\(random).sluice-download", directoryHint: .notDirectory)
    }

    // MARK: Starting

    /// Where the download starts: after the bytes resume data names, when the temporary file still
    /// holds them all; otherwise from the start, with the reason.
    func start() -> (offset: Int64, restart: DownloadRestart?) {
        state.withLock { $0.started = true }
        guard let resume = resumedFrom, resume.bytesReceived > 0 else { return (0, nil) }
        let found = Self.size(of: temporaryFile) ?? 0
        guard found >= resume.bytesReceived else {
            return (0, .partialFileShorter(expected: resume.bytesReceived, found: found))
        }
        state.withLock { s in
            s.validator = resume.validator
            s.bytes = resume.bytesReceived
            s.total = resume.expectedLength
        }
        return (resume.bytesReceived, nil)
    }

    /// The current request asks for the bytes from `offset` on, guarded by the returned validator
    /// (nil: from the start, no range).
    func request(from offset: Int64) -> DownloadValidator? {
        state.withLock { s in
            s.offset = offset
            if offset == 0 { s.bytes = 0 }
            return offset > 0 ? s.validator : nil
        }
    }

    /// The validator the file's bytes were received under.
    var validator: DownloadValidator? { state.withLock { $0.validator } }

    // MARK: Following the transfer

    /// Follows a task event of the download (on the transport's thread, in order); returns why
    /// the download starts over when a head says so (a 2xx other than 206 to a range request), to
    /// be reported at once, before its body arrives.
    func observe(_ kind: TaskEvent.Kind) -> DownloadRestart? {
        switch kind {
        case .responseReceived(let head):
            return state.withLock { $0.received(head) }
        case .downloadProgress(let progress):
            state.withLock { s in
                if s.counting { s.bytes = s.base + progress.completed }
            }
        case .redirected(let hop):
            state.withLock { $0.url = hop.to }
        default:
            break
        }
        return nil
    }

    /// The download's progress over the whole content: a resumed download counts the bytes it had.
    func progress(_ progress: TransferProgress) -> TransferProgress {
        state.withLock { s in
            guard s.counting else { return progress }
            // The body's announced length after the bytes kept (unknown if a server's length
            // would pass what 64 bits count).
            let expected = progress.expected.flatMap { length -> Int64? in
                let (sum, overflow) = length.addingReportingOverflow(s.base)
                return overflow ? nil : sum
            }
            return TransferProgress(completed: s.bytes, expected: s.total ?? expected)
        }
    }

    // MARK: Ending

    /// Puts the finished file at the destination (replacing any file there, atomically); returns
    /// false when the download had already concluded (cancelled meanwhile), and leaves the file.
    func place() throws(SluiceError) -> Bool {
        let outcome = state.withLock { s -> Int32? in
            guard !s.ended else { return nil }
            s.ended = true
            return Self.rename(temporaryFile, to: destination)
        }
        guard let outcome else { return false }
        guard outcome == 0 else {
            let reason = String(cString: strerror(outcome))
            Self.remove(temporaryFile)
            throw SluiceError(.fileWriteFailed, "Cannot move the download to \(destination.path): \(reason).")
        }
        return true
    }

    /// Ends a download whose file is not to be kept (a digest that does not match): deletes it.
    func discard() {
        let first = state.withLock { s -> Bool in
            defer { s.ended = true }
            return !s.ended
        }
        if first { Self.remove(temporaryFile) }
    }

    /// Ends a download that did not put its file in place (cancelled, failed, answered with an
    /// error status): its resume data when the file holds bytes known to belong to a validated
    /// content, else nil, and then the file is deleted. Nil as well once the download has ended.
    func conclude() -> ResumeData? {
        let outcome = state.withLock { s -> (first: Bool, data: ResumeData?) in
            guard !s.ended else { return (false, nil) }
            s.ended = true
            // Never started (cancelled first): the file and the resume data are as they were.
            guard s.started else { return (false, resumedFrom) }
            guard let validator = s.validator, s.bytes > 0 else { return (true, nil) }
            return (
                true,
                ResumeData(
                    url: s.url, validator: validator, bytesReceived: s.bytes, expectedLength: s.total,
                    temporaryFile: temporaryFile, destination: destination)
            )
        }
        if outcome.first, outcome.data == nil { Self.remove(temporaryFile) }
        return outcome.data
    }

    // MARK: Files

    static func size(of url: URL) -> Int64? {
        var info = stat()
        let result = url.withUnsafeFileSystemRepresentation { path in path.map { stat($0, &info) } ?? -1 }
        return result == 0 ? Int64(info.st_size) : nil
    }

    static func remove(_ url: URL) {
        _ = url.withUnsafeFileSystemRepresentation { path in path.map { unlink($0) } }
    }

    /// `rename(2)`; 0, or the `errno`.
    private static func rename(_ from: URL, to: URL) -> Int32 {
        let result = from.withUnsafeFileSystemRepresentation { source in
            to.withUnsafeFileSystemRepresentation { target in
                guard let source, let target else { return Int32(-1) }
                return Glibc.rename(source, target)
            }
        }
        return result == 0 ? 0 : errno
    }
}

extension DownloadPlan.State {
    /// A final head arrived: where its body goes in the file (the transport cuts the file the
    /// same way, see `RequestOptions.BodyDestination.partialFile`).
    fileprivate mutating func received(_ head: ResponseHead) -> DownloadRestart? {
        guard (200..<300).contains(head.status) else {
            // Not a success: the body goes to memory, the file keeps its bytes.
            counting = false
            return nil
        }
        if head.status == 206 {
            // The transport keeps the first `offset` bytes; the body is the rest only if it starts
            // there (the run starts over otherwise).
            base = offset
            bytes = offset
            guard let range = head.headers["Content-Range"].flatMap(ContentRange.init),
                range.bytes?.lowerBound == offset
            else {
                counting = false
                return nil
            }
            // Bytes of another content (a server that ignored `If-Range`): the run starts over.
            if let validator, validator.isContradicted(by: head.headers) {
                counting = false
                return nil
            }
            counting = true
            total = range.completeLength ?? total
            if let fresh = DownloadValidator(headers: head.headers) { validator = fresh }
            return nil
        }
        // All of the content: it replaces whatever the file held.
        let previous = validator
        let dropped = offset > 0
        base = 0
        bytes = 0
        counting = true
        total = head.expectedContentLength
        validator = DownloadValidator(headers: head.headers)
        guard dropped else { return nil }
        return validator != nil && validator == previous ? .rangeIgnored : .contentChanged
    }
}
