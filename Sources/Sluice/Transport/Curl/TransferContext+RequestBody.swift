internal import CCurl
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

// A transfer's request body and its attempts: the read and seek callbacks' side, upload progress,
// and whether libcurl may send the request (again).
extension TransferContext {
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
    func inlineBodySent() {
        let uploaded = min(easy.info(int64: CURLINFO_SIZE_UPLOAD_T), inlineBodyLength)
        guard uploaded > sent else { return }
        sent = uploaded
        reportUpload()
    }

    /// Tells whoever follows the transfer's progress how much of the body has gone out.
    func reportUpload() {
        reportedSent = sent
        switch sink {
        case .events(let observer):
            observer.send(value: .uploadProgress(TransferProgress(completed: sent, expected: expectedUpload)))
        case .response:
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
        if easy.isHTTPS {
            tlsSession = PeerChainCheck.session(on: easy)
            let tls = self.tls
            if tls.checksPeerChain,
                let refusal = PeerChainCheck.refusal(of: tls, on: easy, host: request.url.host() ?? "")
            {
                abortReason = .peerRefused(refusal)
                return SLUICE_PREREQFUNC_ABORT
            }
        }
        attempts += 1
        // What comes back now is a response of its own, not the trailer of the previous one.
        if attempts > 1 { parser.requestSentAgain() }
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
            // The method allowed it: the body is why it was not sent again (not its method, as
            // libcurl's failure to rewind would otherwise be read).
            if abortReason == nil {
                abortReason = .bodyNotRepeatable((error as? SluiceError)?.message ?? "\(error)")
            }
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
}
