import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP request: a value that is edited freely and validated when it is prepared for sending.
public struct Request: Sendable {
    /// The method.
    public var method: HTTPMethod {
        _read { yield storage.method }
        _modify { yield &unique().method }
    }
    /// The absolute URL.
    public var url: URL {
        _read { yield storage.url }
        _modify { yield &unique().url }
    }
    /// The header fields, in order.
    public var headers: HTTPHeaders {
        _read { yield storage.headers }
        _modify { yield &unique().headers }
    }
    /// The body.
    public var body: RequestBody {
        _read { yield storage.body }
        _modify { yield &unique().body }
    }
    /// Transfer settings.
    public var options: RequestOptions {
        _read { yield storage.options }
        _modify { yield &unique().options }
    }

    /// The fields, in one box shared by copies until one of them changes (copy on write): a
    /// request is handed along the chain, into events and into its response many times, and
    /// copying its ~150 bytes and retaining each field every time cost more than the box. The
    /// setters yield the field in place (`_modify`), so `request.headers.add(…)` on an unshared
    /// request does not copy the headers.
    private var storage: Storage

    private final class Storage: @unchecked Sendable {
        // `@unchecked`: mutated only through `unique()`, when this value is the box's only owner.
        // `@exclusivity(unchecked)`: every access goes through the `Request` that owns the box, so
        // the compiler's static check of the `Request` already rules out overlapping accesses; the
        // run-time check (two calls into the runtime per read) cost more than the read. This holds
        // only while the box stays private to `Request`.
        @exclusivity(unchecked) var method: HTTPMethod
        @exclusivity(unchecked) var url: URL
        @exclusivity(unchecked) var headers: HTTPHeaders
        @exclusivity(unchecked) var body: RequestBody
        @exclusivity(unchecked) var options: RequestOptions

        init(method: HTTPMethod, url: URL, headers: HTTPHeaders, body: RequestBody, options: RequestOptions) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.options = options
        }

        func copy() -> Storage {
            Storage(method: method, url: url, headers: headers, body: body, options: options)
        }
    }

    /// Whether `other` is a copy of this very request (the same box): equal in every field, told
    /// in one comparison. Requests made or changed apart may be equal without being copies.
    func isCopy(of other: Request) -> Bool {
        storage === other.storage
    }

    /// This request with `headers` in place of its own, in a box of its own made with them.
    ///
    /// Setting the headers on a copy of a shared request copied its box first, the old headers
    /// included, only to release them again (a retain and a release of the request's box too).
    func replacingHeaders(_ headers: consuming HTTPHeaders) -> Request {
        Request(
            storage: Storage(
                method: storage.method, url: storage.url, headers: consume headers, body: storage.body,
                options: storage.options))
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// The box, made this value's own first if it is shared.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// Creates a request.
    public init(
        method: HTTPMethod = .get,
        url: URL,
        headers: HTTPHeaders = [:],
        body: RequestBody = .empty,
        options: RequestOptions = RequestOptions()
    ) {
        storage = Storage(method: method, url: url, headers: headers, body: body, options: options)
    }

    /// Validates the request; the transport accepts only a `PreparedRequest`.
    public func prepared() throws(SluiceError) -> PreparedRequest {
        try PreparedRequest(self)
    }
}

/// A request that passed validation: the only form a `Transport` accepts.
///
/// Preparing refuses, with a typed error and before anything is sent: URLs that are malformed
/// or whose scheme is not http or https; header names that are not HTTP tokens; header values
/// containing CR, LF or NUL (header injection); a file body that is missing or unreadable;
/// negative or zero limits.
public struct PreparedRequest: Sendable {
    /// The validated request.
    public let request: Request
    /// The URL's text, as validated: what the transport hands libcurl (`absoluteString` again for
    /// every transfer was a call into Foundation and a comparison of two equal strings apart).
    let urlText: String

    init(_ request: Request) throws(SluiceError) {
        urlText = try Self.validateURL(request.url)
        // Headers checked already (a client's defaults, taken as they are) are not checked again.
        if !request.headers.isKnownValid {
            for field in request.headers {
                try Self.validateHeader(name: field.name, value: field.value)
            }
        }
        try Self.validateMethod(request.method)
        try Self.validateBody(request.body)
        try Self.validateOptions(of: request)
        self.request = request
    }

    /// Returns the URL's text if it is a valid http or https URL.
    private static func validateURL(_ url: URL) throws(SluiceError) -> String {
        let text = url.absoluteString
        switch HTTPURLText.problem(in: text) {
        case nil: return text
        case .scheme: throw SluiceError(.invalidURL, "Only http and https URLs can be requested, not \(text).")
        case .host: throw SluiceError(.invalidURL, "The URL \(text) has no host.")
        case .forbiddenByte:
            throw SluiceError(.invalidURL, "The URL \(text.debugDescription) contains spaces or control characters.")
        }
    }

    private static func validateMethod(_ method: HTTPMethod) throws(SluiceError) {
        // Most requests are GETs and POSTs: a comparison of two small strings, not a byte scan.
        // (`==` compares canonical equivalence; no other string is equivalent to these two, but a
        // method with a K would be: KELVIN SIGN decomposes to it. Compare bytes to add one.)
        if method == .get || method == .post { return }
        guard !method.rawValue.isEmpty, method.rawValue.utf8.allSatisfy(isTokenByte) else {
            throw SluiceError(.invalidMethod, "The method \(method.rawValue.debugDescription) is not an HTTP token.")
        }
    }

    /// Whether `validateHeader(name:value:)` accepts the field.
    static func isValidHeader(name: String, value: String) -> Bool {
        (try? validateHeader(name: name, value: value)) != nil
    }

    static func validateHeader(name: String, value: String) throws(SluiceError) {
        // Over the contiguous bytes when the strings are native (the usual case): this runs for
        // every header of every request.
        let nameIsToken =
            name.utf8.withContiguousStorageIfAvailable { bytes in bytes.allSatisfy(isTokenByte) }
            ?? name.utf8.allSatisfy(isTokenByte)
        guard !name.isEmpty, nameIsToken else {
            throw SluiceError(.invalidHeader, "The header name \(name.debugDescription) is not an HTTP token.")
        }
        let isBreak: (UInt8) -> Bool = { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
        if value.utf8.withContiguousStorageIfAvailable({ $0.contains(where: isBreak) })
            ?? value.utf8.contains(where: isBreak)
        {
            throw SluiceError(
                .invalidHeader,
                "The value of header \(name) contains CR, LF or NUL, which could inject headers; it was not sent.")
        }
    }

    private static func validateBody(_ body: RequestBody) throws(SluiceError) {
        guard case .file(let url) = body else { return }
        guard url.isFileURL else {
            throw SluiceError(.invalidBody, "The body file \(url.absoluteString) is not a file URL.")
        }
        var status = stat()
        guard stat(url.path, &status) == 0, status.st_mode & S_IFMT != S_IFDIR else {
            throw SluiceError(.invalidBody, "The body file \(url.path) does not exist.")
        }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw SluiceError(.invalidBody, "The body file \(url.path) is not readable.")
        }
    }

    /// Reads the options in place, one field at a time: taking them as a parameter copied the whole
    /// struct, retaining each of its references, for every request.
    private static func validateOptions(of request: Request) throws(SluiceError) {
        if request.options.connectTimeout <= .zero || request.options.idleTimeout <= .zero
            || (request.options.timeout.map { $0 <= .zero } ?? false)
        {
            throw SluiceError(.invalidOption, "Timeouts must be positive.")
        }
        if request.options.maximumBodySize < 0 || request.options.maximumHeaderSize <= 0
            || (request.options.maximumDownloadSize.map { $0 < 0 } ?? false)
        {
            throw SluiceError(.invalidOption, "Size limits must be positive.")
        }
        if request.options.progressInterval < .zero {
            throw SluiceError(.invalidOption, "The progress interval must not be negative.")
        }
        if case .partialFile(_, let offset) = request.options.destination, offset < 0 {
            throw SluiceError(.invalidOption, "A partial file's offset must not be negative.")
        }
    }

    /// tchar from RFC 9110 §5.6.2.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "^"),
            UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
