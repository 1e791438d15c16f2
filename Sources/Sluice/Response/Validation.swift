import FoundationEssentials

/// Validation operators: each passes a response on unchanged when it is acceptable, and otherwise
/// fails the stream with a `SluiceError` that keeps the response and its body.
///
///     let user = try await client.get("users/42", headers: ["Accept": "application/json"])
///         .validate()                                  // 2xx, and a Content-Type the Accept header allows
///         .validate(statusCode: [200, 203])            // or a set, a range…
///         .validate { request, response, body in … }   // or a rule of your own
///         .value
extension SignalProducer where Value == Response, Failure == SluiceError {
    /// Fails with `.unacceptableStatusCode` unless the status is 2xx, then with `.unacceptableContentType`
    /// unless the `Content-Type` matches the request's `Accept` header (when the request has one).
    public func validate() -> SignalProducer<Response, SluiceError> {
        // A function, not a closure over the check: no closure context per call. `attempt`, not
        // `attemptMap`: an accepted response goes on in the event it arrived in, never copied.
        attempt(validatedByDefault)
    }

    /// Fails with `.unacceptableStatusCode` unless the status is in `range`.
    public func validate(statusCode range: Range<Int>) -> SignalProducer<Response, SluiceError> {
        validate(statuses: AcceptableStatuses(range))
    }

    /// Fails with `.unacceptableStatusCode` unless the status is in `range`.
    public func validate(statusCode range: ClosedRange<Int>) -> SignalProducer<Response, SluiceError> {
        validate(statuses: AcceptableStatuses(range))
    }

    /// Fails with `.unacceptableStatusCode` unless the status is one of `codes` (a set, an array…).
    public func validate<Codes: Sequence<Int>>(statusCode codes: Codes) -> SignalProducer<Response, SluiceError> {
        validate(statuses: AcceptableStatuses(Set(codes)))
    }

    /// Fails with `.unacceptableStatusCode` unless the status is in `statuses`.
    private func validate(statuses: AcceptableStatuses) -> SignalProducer<Response, SluiceError> {
        validating { (response) throws(SluiceError) in
            try ResponseValidation.check(response, statuses: statuses)
        }
    }

    /// Fails with `.unacceptableContentType` unless the `Content-Type` matches one of `types`, media
    /// ranges such as `application/json`, `text/*` or `*/*` (parameters and case are ignored, `q=0` excludes).
    public func validate(contentType types: [String]) -> SignalProducer<Response, SluiceError> {
        let ranges = types.flatMap { MediaRange.list($0) }
        return validating { (response) throws(SluiceError) in
            try ResponseValidation.check(response, contentTypes: ranges)
        }
    }

    /// Fails with `.validationFailed`, the thrown error as `underlyingError`, when `rule` throws for
    /// the request, the response and its body.
    public func validate(
        _ rule: @escaping @Sendable (Request, Response, Data) throws -> Void
    ) -> SignalProducer<Response, SluiceError> {
        validating { (response) throws(SluiceError) in
            do {
                try rule(response.request, response, response.body)
            } catch {
                throw ResponseValidation.ruleFailed(response, error)
            }
        }
    }

    /// Fails with `.validationFailed`, the error as `underlyingError`, when `rule` returns a failure
    /// for the request, the response and its body.
    public func validate(
        _ rule: @escaping @Sendable (Request, Response, Data) -> Result<Void, any Error>
    ) -> SignalProducer<Response, SluiceError> {
        validating { (response) throws(SluiceError) in
            if case .failure(let error) = rule(response.request, response, response.body) {
                throw ResponseValidation.ruleFailed(response, error)
            }
        }
    }
}

extension SignalProducer where Value == Response, Failure == SluiceError {
    /// Passes each response that `check` accepts; a rejection fails the stream, and completes the
    /// request's task (when somebody watches its events) with the validation error.
    fileprivate func validating(
        _ check: @escaping @Sendable (Response) throws(SluiceError) -> Void
    ) -> SignalProducer<Response, SluiceError> {
        attempt { (response) throws(SluiceError) in try validated(response, by: check) }
    }
}

/// Returns when `check` accepts `response`; otherwise its task settles with the error, thrown.
private func validated(
    _ response: Response, by check: (Response) throws(SluiceError) -> Void
) throws(SluiceError) {
    do throws(SluiceError) {
        try check(response)
    } catch {
        response.outcomeObserver?.settle(response, value: nil, error: error)
        throw error
    }
}

/// Returns when `validate()` accepts `response`; otherwise its task settles with the error, thrown.
@Sendable private func validatedByDefault(_ response: Response) throws(SluiceError) {
    try validated(response, by: ResponseValidation.checkDefault)
}

/// The statuses a validation accepts, and how a message names them.
struct AcceptableStatuses: Sendable {
    /// Whether a status is acceptable.
    let contains: @Sendable (Int) -> Bool
    /// `200..<300`, `200...204` or `one of 200, 204`.
    let description: String

    /// 2xx, what `validate()` accepts.
    static let successful = AcceptableStatuses(200..<300)

    init(_ range: Range<Int>) {
        contains = { range.contains($0) }
        description = "\(range.lowerBound)..<\(range.upperBound)"
    }

    init(_ range: ClosedRange<Int>) {
        contains = { range.contains($0) }
        description = "\(range.lowerBound)...\(range.upperBound)"
    }

    init(_ codes: Set<Int>) {
        contains = { codes.contains($0) }
        switch codes.count {
        case 0: description = "no status at all"
        case 1: description = "\(codes.first!)"
        default: description = "one of " + codes.sorted().map(String.init).joined(separator: ", ")
        }
    }
}

/// The checks behind the operators, as throwing functions of a response.
enum ResponseValidation {
    /// What `validate()` checks, on a response or a stream's head: a 2xx status, then a
    /// `Content-Type` the request's `Accept` header allows (when it has one).
    static func checkDefault(_ response: Response) throws(SluiceError) {
        // A 2xx passes without the shared statuses' closure (a lazy global and an indirect call).
        if !(200..<300).contains(response.status) { try check(response, statuses: .successful) }
        if let accepted = MediaRange.accepted(by: response.request) {
            try check(response, contentTypes: accepted)
        }
    }

    /// Throws `.unacceptableStatusCode` unless `statuses` contains the response's status.
    static func check(_ response: Response, statuses: AcceptableStatuses) throws(SluiceError) {
        guard !statuses.contains(response.status) else { return }
        throw SluiceError(
            .unacceptableStatusCode,
            "Response status \(response.status) is not acceptable (expected \(statuses.description)) for "
                + ValidationMessage.context(of: response),
            response: response)
    }

    /// Throws `.unacceptableContentType` unless the response's `Content-Type` matches `ranges`.
    ///
    /// A response without a `Content-Type` passes when its body is empty or `ranges` allow `*/*`;
    /// a malformed one never passes.
    static func check(_ response: Response, contentTypes ranges: [MediaRange]) throws(SluiceError) {
        guard let header = response.headers["Content-Type"] else {
            let empty = response.body.isEmpty && response.fileURL == nil
            if empty || MediaRange.acceptsAnything(ranges) { return }
            throw SluiceError(
                .unacceptableContentType,
                "Response has no Content-Type for its \(response.body.count)-byte body (accepts "
                    + "\(MediaRange.describe(ranges))) for " + ValidationMessage.context(of: response),
                response: response)
        }
        // An ASCII header read from its bytes (the same type and subtype), any other by characters.
        if let type = MediaRange.asciiContentType(header) ?? MediaRange(header[...]),
            MediaRange.isAcceptable(type, in: ranges)
        {
            return
        }
        throw SluiceError(
            .unacceptableContentType,
            "Response Content-Type \(header) is not acceptable (accepts \(MediaRange.describe(ranges))) for "
                + ValidationMessage.context(of: response),
            response: response)
    }

    /// The `.validationFailed` error for a custom rule that failed with `error`.
    static func ruleFailed(_ response: Response, _ error: any Error) -> SluiceError {
        SluiceError(
            .validationFailed,
            "Response status \(response.status) failed validation (\(error)) for "
                + ValidationMessage.context(of: response),
            underlyingError: error,
            response: response)
    }
}
