import FoundationEssentials

// Validation of a stream happens at its head, before any chunk is delivered: a rejected response's
// body is collected (up to the request's `maximumBodySize`) into the error, as a validated
// collected response's is, so that an API's error document can be read from `error.response`.

extension ResponseStream {
    /// This stream, failing with `.unacceptableStatusCode` unless the status is 2xx, then with
    /// `.unacceptableContentType` unless the `Content-Type` matches the request's `Accept` header
    /// (when it has one), before any chunk is delivered.
    public func validate() -> ResponseStream {
        adding(ResponseValidation.checkDefault)
    }

    /// This stream, failing with `.unacceptableStatusCode` unless the status is in `range`.
    public func validate(statusCode range: Range<Int>) -> ResponseStream {
        let statuses = AcceptableStatuses(range)
        return adding { (response) throws(SluiceError) in try ResponseValidation.check(response, statuses: statuses) }
    }

    /// This stream, failing with `.unacceptableStatusCode` unless the status is one of `codes`.
    public func validate<Codes: Sequence<Int>>(statusCode codes: Codes) -> ResponseStream {
        let statuses = AcceptableStatuses(Set(codes))
        return adding { (response) throws(SluiceError) in try ResponseValidation.check(response, statuses: statuses) }
    }

    /// This stream, failing with `.unacceptableContentType` unless the `Content-Type` matches one of
    /// `types` (media ranges such as `text/event-stream` or `text/*`).
    public func validate(contentType types: [String]) -> ResponseStream {
        let ranges = types.flatMap { MediaRange.list($0) }
        return adding { (response) throws(SluiceError) in
            try ResponseValidation.check(response, contentTypes: ranges)
        }
    }

    private func adding(_ check: @escaping @Sendable (Response) throws(SluiceError) -> Void) -> ResponseStream {
        ResponseStream(request: request, client: client, validations: validations + [check])
    }

    /// Passes a response whose head every check accepts, its body still streaming; fails with the
    /// first rejection, made again from the response with its body collected.
    func checkingHead(_ response: Response) -> SignalProducer<Response, SluiceError> {
        let validations = self.validations
        @Sendable func firstRejection(_ response: Response) -> SluiceError? {
            for check in validations {
                do throws(SluiceError) { try check(response) } catch { return error }
            }
            return nil
        }
        guard firstRejection(response) != nil else { return SignalProducer(value: response) }
        return response.collected().attemptMap { (whole) throws(SluiceError) -> Response in
            throw firstRejection(whole) ?? SluiceError(.validationFailed, "The response was rejected.", response: whole)
        }
    }
}
