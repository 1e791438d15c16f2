import FoundationEssentials

/// The one error type of Sluice: every request fails with a `SluiceError`.
///
/// `code` says what kind of failure it is; the other properties carry what is known about it
/// (which timeout, the libcurl code and message, the offending header, the response and its body).
/// New codes can be added without breaking code that switches over them with a `default` case:
///
///     switch error.code {
///     case .timedOut where error.timeout == .connect: …
///     case .cannotConnect, .dnsFailure: …
///     default: …
///     }
public struct SluiceError: Error, Sendable, CustomStringConvertible {
    /// The fields, in one shared box: every stream event is as wide as its failure type, so a
    /// one-word error keeps every event of every request small.
    private final class Storage: Sendable {
        let code: Code
        let message: String
        let timeout: TimeoutKind?
        let curlCode: Int?
        let underlyingError: (any Error)?
        let response: Response?
        let keyPath: String?
        let tlsFailure: TLSFailureReason?

        init(
            code: Code, message: String, timeout: TimeoutKind?, curlCode: Int?, underlyingError: (any Error)?,
            response: Response?, keyPath: String?, tlsFailure: TLSFailureReason?
        ) {
            self.code = code
            self.message = message
            self.timeout = timeout
            self.curlCode = curlCode
            self.underlyingError = underlyingError
            self.response = response
            self.keyPath = keyPath
            self.tlsFailure = tlsFailure
        }
    }

    private let storage: Storage

    /// What kind of failure this is.
    public var code: Code { storage.code }
    /// A sentence a person can act on, naming what was wrong.
    public var message: String { storage.message }
    /// Which timeout fired, for `.timedOut`.
    public var timeout: TimeoutKind? { storage.timeout }
    /// The libcurl result code behind a transport failure, if any.
    public var curlCode: Int? { storage.curlCode }
    /// The error that caused this one (a decoding error, a file-system error), if any.
    public var underlyingError: (any Error)? { storage.underlyingError }
    /// The response, when the failure concerns one (validation, serialization, a too-large body).
    public var response: Response? { storage.response }
    /// Where in the parameters or the body the problem is, e.g. `user.scores[2]`, if that applies.
    public var keyPath: String? { storage.keyPath }
    /// Why TLS failed, for `.tlsFailure`: an untrusted issuer, an expired certificate, a pin that
    /// did not match…
    public var tlsFailure: TLSFailureReason? { storage.tlsFailure }

    /// Creates an error; the library's own errors are made with the static constructors.
    public init(
        _ code: Code,
        _ message: String,
        timeout: TimeoutKind? = nil,
        curlCode: Int? = nil,
        underlyingError: (any Error)? = nil,
        response: Response? = nil,
        keyPath: String? = nil,
        tlsFailure: TLSFailureReason? = nil
    ) {
        storage = Storage(
            code: code, message: message, timeout: timeout, curlCode: curlCode, underlyingError: underlyingError,
            response: response, keyPath: keyPath, tlsFailure: tlsFailure)
    }

    /// `code: message`, plus the libcurl code when there is one.
    public var description: String {
        var text = "\(code): \(message)"
        if let keyPath { text += " (at \(keyPath))" }
        if let curlCode { text += " (libcurl error \(curlCode))" }
        return text
    }

    /// The HTTP status of the response the error concerns, if any.
    public var responseCode: Int? { response?.status }
}

extension SluiceError {
    /// A kind of failure; compare with the static constants (`error.code == .timedOut`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A stable, readable name such as `"timedOut"`.
        public let name: String

        /// Creates a code; Sluice's own codes are the static constants.
        public init(_ name: String) { self.name = name }

        /// The name.
        public var description: String { name }

        /// The URL is malformed, or its scheme is not http or https.
        public static let invalidURL = Code("invalidURL")
        /// The method is not an HTTP token (empty, or with a space, a separator, a control or a
        /// non-ASCII character): sent, it would change the request line.
        public static let invalidMethod = Code("invalidMethod")
        /// A header name or value is not allowed (for example it contains CR, LF or NUL).
        public static let invalidHeader = Code("invalidHeader")
        /// The request body cannot be sent (a file that is missing or unreadable, a failing provider).
        public static let invalidBody = Code("invalidBody")
        /// The parameters cannot be encoded (a NaN, an infinity, a value the encoding cannot express);
        /// `keyPath` names the offending one.
        public static let invalidParameters = Code("invalidParameters")
        /// A multipart form cannot be built (a missing or unreadable file, a part that fails).
        public static let multipartEncoding = Code("multipartEncoding")
        /// An option of the request is out of range.
        public static let invalidOption = Code("invalidOption")
        /// The host's name could not be resolved.
        public static let dnsFailure = Code("dnsFailure")
        /// No connection could be made to the host.
        public static let cannotConnect = Code("cannotConnect")
        /// A timeout fired; `timeout` says which.
        public static let timedOut = Code("timedOut")
        /// The connection closed or failed before the response was complete.
        public static let connectionLost = Code("connectionLost")
        /// The TLS handshake or certificate verification failed; `message` has libcurl's reason.
        public static let tlsFailure = Code("tlsFailure")
        /// The server's reply is not valid HTTP, such as a head whose body's length is ambiguous
        /// (Content-Lengths that differ, one that is not a length, one with a Transfer-Encoding).
        public static let protocolError = Code("protocolError")
        /// The decoded response body exceeded `RequestOptions.maximumBodySize`.
        public static let responseTooLarge = Code("responseTooLarge")
        /// The response headers exceeded `RequestOptions.maximumHeaderSize`, or one header line
        /// exceeded libcurl's limit of 100 KiB per line.
        public static let headersTooLarge = Code("headersTooLarge")
        /// Writing a downloaded body to its file failed.
        public static let fileWriteFailed = Code("fileWriteFailed")
        /// The transport failed in a way none of the other codes describe.
        public static let transportFailure = Code("transportFailure")
        /// The response's status is not one `validate` accepts; `response` has the status and body.
        public static let unacceptableStatusCode = Code("unacceptableStatusCode")
        /// The response's content type is not one the request accepts; `response` has it and the body.
        public static let unacceptableContentType = Code("unacceptableContentType")
        /// A custom `validate { … }` rejected the response; `response` has the status and body.
        public static let validationFailed = Code("validationFailed")
        /// The body could not be turned into the requested value (malformed JSON, a wrong type deep
        /// inside, an empty body); `keyPath` has the coding path and `message` the first bytes.
        public static let serializationFailed = Code("serializationFailed")
        /// A retry policy gave up; `underlyingError` is the last failure.
        public static let retryExhausted = Code("retryExhausted")
        /// Too many redirects, a loop, or a redirect to a scheme that is not allowed.
        public static let redirectFailed = Code("redirectFailed")
        /// An interceptor failed the request: an adapter threw, or a token could not be fetched.
        public static let interceptorFailed = Code("interceptorFailed")
        /// A credential could not be refreshed after the server answered 401.
        public static let authenticationFailed = Code("authenticationFailed")
        /// The request was cancelled before it finished.
        public static let cancelled = Code("cancelled")
        /// The stream ended without the value that was awaited.
        public static let noValue = Code("noValue")
        /// A streaming response body was read a second time, or after it was discarded.
        public static let bodyAlreadyRead = Code("bodyAlreadyRead")
        /// A cookie cannot be stored: its name, value, domain or path has a byte a cookie cannot
        /// hold (a control character, a tab, a `;`), or its name or domain is empty.
        public static let invalidCookie = Code("invalidCookie")
        /// A cookie file cannot be read, or a line of it is not a cookie in the Netscape format;
        /// `message` names the file and the line.
        public static let invalidCookieFile = Code("invalidCookieFile")
        /// The network cannot be watched: the kernel's netlink route socket could not be opened or
        /// read (a sandbox without `AF_NETLINK`, for example), so reachability stays `unknown`.
        public static let reachabilityUnavailable = Code("reachabilityUnavailable")
    }

    /// Which timeout fired.
    public enum TimeoutKind: String, Sendable, Equatable {
        /// `RequestOptions.connectTimeout`: no connection within the time.
        case connect
        /// `RequestOptions.idleTimeout`: no bytes moved in either direction for the time.
        case idle
        /// `RequestOptions.timeout`: the whole transfer took longer.
        case total
        /// `RequestOptions.deadline` or a request producer's `timeout(after:)`: the request, its
        /// retries and redirects included, took longer.
        case deadline
    }
}

extension SluiceError {
    /// Whether the request was never sent because it was invalid.
    public var isInvalidRequest: Bool {
        [
            .invalidURL, .invalidMethod, .invalidHeader, .invalidBody, .invalidOption, .invalidParameters,
            .multipartEncoding,
        ]
        .contains(code)
    }

    /// Whether a timeout fired.
    public var isTimeout: Bool { code == .timedOut }

    /// Whether `validate` rejected the response (status, content type or a custom rule).
    public var isValidationError: Bool {
        [.unacceptableStatusCode, .unacceptableContentType, .validationFailed].contains(code)
    }

    /// Whether the body could not be turned into the requested value.
    public var isSerializationError: Bool { code == .serializationFailed }

    /// Whether the request was cancelled.
    public var isCancelled: Bool { code == .cancelled }

    /// Whether the failure happened in the transport (DNS, connection, TLS, timeouts, limits).
    public var isTransportError: Bool {
        [
            .dnsFailure, .cannotConnect, .timedOut, .connectionLost, .tlsFailure, .protocolError,
            .responseTooLarge, .headersTooLarge, .fileWriteFailed, .transportFailure,
        ].contains(code)
    }
}

extension SluiceError: AwaitableFailure {
    /// A cancelled request throws `.cancelled`; a stream that completed without a value `.noValue`.
    public static func noValue(_ ending: StreamEnding) -> SluiceError {
        switch ending {
        case .interrupted: return SluiceError(.cancelled, "The request was cancelled before it produced a value.")
        case .completed: return SluiceError(.noValue, "The stream completed without producing a value.")
        }
    }
}
