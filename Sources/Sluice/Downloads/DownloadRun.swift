import FoundationEssentials

/// The run of one download through the client's chain: each request is an ordinary one (a
/// resumed one carries `Range` and `If-Range`, and its body goes to the temporary file through
/// `BodyDestination.partialFile`), so interceptors, redirects and retries apply. What the final
/// response means for the file is decided here:
///
/// - 206 whose `Content-Range` starts at the byte asked for: the body went after the bytes the
///   file had; when the range ends before the content does, the rest is asked for.
/// - Any other 2xx: the body replaced the file's bytes (the content changed, or the server does
///   not serve ranges): reported as a restart, as its head arrives, when bytes were dropped.
/// - 416, or a 206 of other bytes: asked again from the start, once.
/// - Any other status: the response as it is, its body in memory; the file is kept for resume
///   data, or deleted.
///
/// The finished file is digested when a digest is expected (on a thread of its own: a large file
/// takes seconds), then moved to its destination.
struct DownloadRun: Sendable {
    let client: Client
    let request: Request
    let plan: DownloadPlan
    let control: TransferControl
    let reporter: TaskReporter?
    let observer: Observer<Response, SluiceError>
    let current: SerialDisposable

    /// The download as a producer of its response, whose `fileURL` is the destination.
    static func producer(
        client: Client, request: Request, plan: DownloadPlan, control: TransferControl, reporter: TaskReporter?
    ) -> SignalProducer<Response, SluiceError> {
        SignalProducer { observer, lifetime in
            let current = SerialDisposable()
            lifetime += current
            let run = DownloadRun(
                client: client, request: request, plan: plan, control: control, reporter: reporter,
                observer: observer, current: current)
            // The task ends with the download, not with the response of one of its requests: a
            // restart sends another, and the file is checked and moved after the last.
            reporter?.claimCompletion()
            lifetime.observeEnded { reporter?.cancelled() }
            let (offset, restart) = plan.start()
            if let restart { reporter?.report(.downloadRestarted(restart)) }
            run.send(from: offset, restartsLeft: 1)
        }
    }

    /// Sends the request for the bytes from `offset` on.
    private func send(from offset: Int64, restartsLeft: Int) {
        var offset = offset
        var validator = plan.request(from: offset)
        if offset > 0, validator == nil {
            // Bytes no validator guards cannot be resumed: a range without `If-Range` could join
            // two contents.
            offset = 0
            validator = plan.request(from: 0)
        }
        var attempt = request
        attempt.headers.remove(name: "Range")
        attempt.headers.remove(name: "If-Range")
        if offset > 0, let validator {
            attempt.headers["Range"] = "bytes=\(offset)-"
            attempt.headers["If-Range"] = validator.ifRangeValue
        }
        attempt.options.destination = .partialFile(plan.temporaryFile, offset: offset)
        // Nil when the caller left: send nothing.
        guard let slot = current.freshSlot() else { return }
        // The response is acted on once its attempt has completed, not as it arrives: the next
        // request replaces the attempt in `current`, and replacing one that has not ended yet
        // interrupts it, which would end the whole download as cancelled.
        let answer = Lock<Response?>(nil)
        slot.inner = client.response(for: attempt, mode: .collected, control: control, reporter: reporter).start {
            [offset, validator] event in
            switch event {
            case .value(let response): answer.withLock { $0 = response }
            case .completed:
                guard let response = answer.withLock({ $0.take() }) else {
                    return fail(SluiceError(.noValue, "The download's request completed without a response."))
                }
                interpret(response, asked: offset, under: validator, restartsLeft: restartsLeft)
            case .failed(let error): fail(error)
            case .interrupted: observer.sendInterrupted()
            }
        }
    }

    /// Ends the download with `response`, and its task with it.
    private func succeed(_ response: Response) {
        observer.send(value: response)
        reporter?.complete(TaskCompletion(response: response, error: nil))
        observer.sendCompleted()
    }

    /// Ends the download with `error`, and its task with it.
    private func fail(_ error: SluiceError) {
        reporter?.complete(TaskCompletion(response: error.response, error: error))
        observer.send(error: error)
    }

    /// Acts on the response to the request for the bytes from `asked` on, sent with `validator`
    /// in `If-Range` (nil: no range was asked for).
    private func interpret(
        _ response: Response, asked: Int64, under validator: DownloadValidator?, restartsLeft: Int
    ) {
        switch response.status {
        case 206:
            guard let range = response.headers["Content-Range"].flatMap(ContentRange.init), let bytes = range.bytes,
                bytes.lowerBound == asked
            else {
                return restart(.rangeMismatch, restartsLeft: restartsLeft, response: response)
            }
            // A range of another content: the server ignored `If-Range`, and its bytes cannot be
            // joined to the file's (`DownloadPlan` did not count them either).
            if asked > 0, let validator, validator.isContradicted(by: response.headers) {
                return restart(.contentChanged, restartsLeft: restartsLeft, response: response)
            }
            // The file must now end where the range does (`ContentRange` keeps `upperBound + 1`
            // countable). A body shorter than its range (a smaller Content-Length, a close that
            // came early) leaves the file short: what arrived is the range's start, so the rest is
            // asked for; filling from the range's end instead left a run of zeros in the file.
            let end = bytes.upperBound + 1
            let held = DownloadPlan.size(of: plan.temporaryFile) ?? -1
            if held != end {
                guard held > asked, held < end else {
                    return restart(.rangeMismatch, restartsLeft: restartsLeft, response: response)
                }
                return askForTheRest(from: held, restartsLeft: restartsLeft, response: response)
            }
            if let complete = range.completeLength, end < complete {
                // A server may send less than asked for: ask for the rest, while it moves forward.
                return askForTheRest(from: end, restartsLeft: restartsLeft, response: response)
            }
            finish(response, expectedLength: range.completeLength ?? end)
        case 200..<300:
            // All of the content (a restart, if a range was asked for, was reported with the head:
            // see `DownloadPlan.observe`).
            finish(response, expectedLength: response.head.expectedContentLength)
        case 416 where restartsLeft > 0:
            reporter?.report(.downloadRestarted(.rangeNotSatisfiable))
            send(from: 0, restartsLeft: restartsLeft - 1)
        default:
            // The response as it is (its body in memory); the task concludes the file.
            succeed(response)
        }
    }

    /// Asks for the bytes from `offset` on, after a 206 that ended before the content did. Only
    /// bytes a validator guards can be asked for by range: without one, asking again would start
    /// from the first byte, get the same partial answer, and go round for ever, so the download
    /// starts over, once, and then fails.
    private func askForTheRest(from offset: Int64, restartsLeft: Int, response: Response) {
        guard plan.validator != nil else {
            return restart(.rangeMismatch, restartsLeft: restartsLeft, response: response)
        }
        send(from: offset, restartsLeft: restartsLeft)
    }

    private func restart(_ reason: DownloadRestart, restartsLeft: Int, response: Response) {
        guard restartsLeft > 0 else {
            return fail(
                SluiceError(
                    .downloadFailed,
                    "The server's range responses for \(response.request.url) stayed inconsistent after starting over.",
                    response: response))
        }
        reporter?.report(.downloadRestarted(reason))
        send(from: 0, restartsLeft: restartsLeft - 1)
    }

    /// Checks the finished file's length and digest, then puts it in place.
    private func finish(_ response: Response, expectedLength: Int64?) {
        let size = DownloadPlan.size(of: plan.temporaryFile) ?? -1
        if let expectedLength, size != expectedLength {
            plan.discard()
            return fail(
                SluiceError(
                    .downloadFailed,
                    "The download from \(response.request.url) holds \(size) bytes, not the \(expectedLength) announced.",
                    response: response))
        }
        guard let expected = plan.expectedDigest else { return place(response) }
        DetachedThread.start(name: "sluice-digest") {
            do throws(SluiceError) {
                let actual = try FileDigest.digest(expected.algorithm, ofFile: plan.temporaryFile)
                guard actual == expected.bytes else {
                    plan.discard()
                    return fail(
                        SluiceError(
                            .digestMismatch,
                            "The download from \(response.request.url) has the \(expected.algorithm.rawValue) digest "
                                + "\(ExpectedDigest.hex(actual)), not the expected \(expected.hex); it was deleted.",
                            response: response))
                }
                place(response)
            } catch {
                plan.discard()
                fail(error)
            }
        }
    }

    private func place(_ response: Response) {
        do throws(SluiceError) {
            guard try plan.place() else { return }
            succeed(
                Response(
                    status: response.status, headers: response.headers, httpVersion: response.httpVersion,
                    fileURL: plan.destination, metrics: response.metrics, request: response.request))
        } catch {
            fail(error)
        }
    }
}
