internal import CCurl
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Sets an easy handle's options for one request, with Sluice's safe defaults.
enum EasyConfigurator {
    /// Receive buffer for downloads to a file: raw libcurl goes from about 2 to 5 GB/s with it here.
    static let bulkReceiveBufferSize = 512 * 1024

    /// The largest in-memory body sent in the same write as the request's head. libcurl puts a
    /// body it holds in memory (CURLOPT_POSTFIELDS) into the head's buffer when it is smaller than
    /// 64 KiB; a body it reads through the read callback always goes in a write of its own, after
    /// the head has gone out and the socket is writable again: a second `send` and another round
    /// of the loop for every small POST (1 KiB POSTs with 64 in flight made 2 sends per request,
    /// raw libcurl with POSTFIELDS 1).
    static let inlineBodyLimit = 64 * 1024 - 1

    /// A new handle with the options that are the same for every transfer: set once here, never
    /// reset (a pooled handle keeps its options, see `EasyHandle.settings`).
    static func makeHandle() throws(SluiceError) -> EasyHandle {
        let easy = try EasyHandle()
        // Only http and https, also for redirects libcurl might see (it follows none itself).
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_FOLLOWLOCATION, false)
        try easy.set(CURLOPT_NOSIGNAL, true)
        // A proxy's answer to CONNECT is not the response: without this, its header block reached
        // the header callback as if it were the server's.
        try easy.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, true)
        try easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(easy.errorBuffer))
        try easy.set(CURLOPT_HEADERFUNCTION, callback: headerCallback)
        try easy.set(CURLOPT_WRITEFUNCTION, callback: writeCallback)
        // These callbacks, and the loop when a transfer finishes, find the transfer through the
        // handle (see `EasyHandle.transfer`).
        try easy.set(CURLOPT_HEADERDATA, pointer: easy.userData)
        try easy.set(CURLOPT_WRITEDATA, pointer: easy.userData)
        try easy.set(CURLOPT_PREREQDATA, pointer: easy.userData)
        try easy.set(CURLOPT_PRIVATE, pointer: easy.userData)
        // libcurl calls these only for requests that send a body, which set their data pointers.
        try easy.set(CURLOPT_READFUNCTION, readCallback: readCallback)
        try easy.set(seekCallback: seekCallback)
        try easy.set(prerequestCallback: prerequestCallback)
        return easy
    }

    /// Sets the options of one request; only those that differ from the handle's current ones
    /// reach libcurl.
    static func configure(_ context: TransferContext, configuration: CurlTransport.Configuration) throws(SluiceError) {
        let easy = context.easy
        let request = context.request

        // A pooled handle that sent to the same URL keeps it, parsed (see `EasyHandle.setURL`).
        let url = context.urlText
        if easy.settings.url != url {
            // Wait for a connection that can multiplex rather than opening another one. Depends on
            // the URL only, so checked when it changes (first: the URL is recorded last).
            let pipeWait = Self.isHTTPS(url)
            if easy.settings.pipeWait != pipeWait {
                try easy.set(CURLOPT_PIPEWAIT, pipeWait)
                easy.settings.pipeWait = pipeWait
            }
            try easy.setURL(url)
        }
        // Compared as durations: converting them to milliseconds for every request cost more.
        if easy.settings.connectTimeout != request.options.connectTimeout {
            try easy.set(CURLOPT_CONNECTTIMEOUT_MS, milliseconds(request.options.connectTimeout))
            easy.settings.connectTimeout = request.options.connectTimeout
        }
        if easy.settings.timeout != request.options.timeout {
            try easy.set(CURLOPT_TIMEOUT_MS, request.options.timeout.map(milliseconds) ?? 0)
            easy.settings.timeout = request.options.timeout
        }
        // An explicit empty proxy turns off libcurl's reading of http_proxy and friends.
        let proxy = request.options.proxy ?? (request.options.proxyFromEnvironment ? nil : "")
        if easy.settings.proxy != proxy {
            try easy.set(CURLOPT_PROXY, optional: proxy)
            easy.settings.proxy = proxy
        }
        // Left unset, libcurl reads no_proxy from the environment for every transfer (two getenv
        // calls, about 1,000 instructions), and honours it for a proxy the caller chose.
        let noProxy: String? = request.options.proxyFromEnvironment ? nil : ""
        if easy.settings.noProxy != noProxy {
            try easy.set(CURLOPT_NOPROXY, optional: noProxy)
            easy.settings.noProxy = noProxy
        }
        if easy.settings.verifyTLS != request.options.verifyTLS {
            try easy.set(CURLOPT_SSL_VERIFYPEER, request.options.verifyTLS)
            try easy.set(CURLOPT_SSL_VERIFYHOST, request.options.verifyTLS ? 2 : 0)
            easy.settings.verifyTLS = request.options.verifyTLS
        }
        if easy.settings.decompress != request.options.decompress {
            try easy.set(CURLOPT_ACCEPT_ENCODING, optional: request.options.decompress ? "" : nil)
            easy.settings.decompress = request.options.decompress
        }
        let httpVersion: Int
        switch request.options.httpVersion {
        case .automatic: httpVersion = Int(CURL_HTTP_VERSION_2TLS)
        case .http1_1: httpVersion = Int(CURL_HTTP_VERSION_1_1)
        case .http2: httpVersion = Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        }
        if easy.settings.httpVersion != httpVersion {
            try easy.set(CURLOPT_HTTP_VERSION, httpVersion)
            easy.settings.httpVersion = httpVersion
        }
        var bufferSize = request.options.receiveBufferSize
        if bufferSize == nil, case .file = request.options.destination { bufferSize = bulkReceiveBufferSize }
        if easy.settings.bufferSize != bufferSize {
            try easy.set(CURLOPT_BUFFERSIZE, bufferSize ?? Int(CURL_MAX_WRITE_SIZE))
            easy.settings.bufferSize = bufferSize
        }

        // The callbacks' way to the transfer, and the loop's from a finished handle to its context.
        easy.transfer = context.userData

        if case .file(let url) = request.options.destination {
            let descriptor = openForDownload(url)
            guard descriptor >= 0 else {
                throw SluiceError(
                    .fileWriteFailed, "Cannot open \(url.path) for the download: \(String(cString: strerror(errno))).")
            }
            context.outputDescriptor = descriptor
        }

        // Methods that carry a body by convention send an empty one with Content-Length: 0.
        let sendsBody = context.hasBody || request.method == .post || request.method == .put || request.method == .patch
        let inlineBody = try configureMethodAndBody(context, sendsBody: sendsBody)
        // libcurl sends a POST, and any request whose body it holds in memory, as a form unless told
        // otherwise.
        let formByDefault = request.method == .post || inlineBody
        // The header lines depend on these only; a pooled handle that sent the same ones keeps its
        // list without the lines being formatted again (the defaults usually share their storage,
        // which makes the comparison a pointer check).
        // (Compared in place: making the request's source first copied its headers for nothing.)
        let decompress = request.options.decompress
        let isSameSource =
            easy.headerSource?.isSame(
                headers: request.headers, formByDefault: formByDefault, sendsBody: sendsBody, decompress: decompress)
            ?? false
        if !isSameSource {
            try easy.setHeaders(headerLines(for: request, formByDefault: formByDefault, sendsBody: sendsBody))
            easy.headerSource = EasyHandle.HeaderSource(
                headers: request.headers, formByDefault: formByDefault, sendsBody: sendsBody, decompress: decompress)
        }
    }

    /// Opens the file a download goes to, created or truncated; returns the descriptor, or -1 with
    /// `errno` set.
    private static func openForDownload(_ url: URL) -> Int32 {
        let flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC
        // A path without percent escapes or a trailing slash is already its file system
        // representation. Only other paths go through Foundation's decoding (`path` does too), whose
        // code (a set of bytes, hashing) otherwise stays resident in a process that never needed it.
        let encoded = url.path(percentEncoded: true)
        if url.baseURL == nil, encoded.utf8.last != UInt8(ascii: "/"),
            !encoded.utf8.contains(UInt8(ascii: "%"))
        {
            return open(encoded, flags, 0o644)
        }
        return url.withUnsafeFileSystemRepresentation { path in path.map { open($0, flags, 0o644) } ?? -1 }
    }

    /// Sets the method and how the body is sent; returns whether the body goes to libcurl in memory,
    /// with the head (see `inlineBodyLimit`).
    private static func configureMethodAndBody(
        _ context: TransferContext, sendsBody: Bool
    ) throws(SluiceError) -> Bool {
        let easy = context.easy
        let request = context.request
        let length = context.expectedUpload
        let hasBody = context.hasBody

        // (A HEAD sends no body: libcurl must know it for what it is, to expect no body back.)
        var inlineData: Data? = nil
        if hasBody, case .data(let data) = request.body, !data.isEmpty, data.count <= inlineBodyLimit,
            request.method != .head
        {
            inlineData = data
        }

        if easy.settings.methodChanged {
            // A handle whose last transfer sent its body with the head, with the same method, has
            // nothing else to put back: its method options stay, only the body is replaced (the
            // POSTs of an API client in a row; six fewer options per request, ~1,100 instructions).
            if let inlineData, easy.settings.inlineMethod == request.method {
                try setInlineBody(inlineData, context)
                return true
            }
            // Forgotten before any option changes: should one of them fail, the next transfer
            // resets again instead of trusting method options that are gone.
            easy.settings.inlineMethod = nil
            // First (a recycled handle has no copy left): dropping it makes the handle a POST again,
            // which HTTPGET undoes.
            easy.dropInlineBody()
            // Back to a plain GET (HTTPGET also turns NOBODY and UPLOAD off), with no body sizes and
            // no pointers to the previous transfer's context.
            try easy.set(CURLOPT_HTTPGET, true)
            try easy.set(CURLOPT_CUSTOMREQUEST, optional: nil)
            try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, int64: -1)
            try easy.set(CURLOPT_INFILESIZE_LARGE, int64: -1)
            try easy.set(CURLOPT_READDATA, pointer: nil)
            try easy.set(CURLOPT_SEEKDATA, pointer: nil)
            easy.settings.methodChanged = false
        }

        if let inlineData {
            try setInlineBody(inlineData, context)
            return true
        }
        do {
            if hasBody { context.bodyReader = try TransferContext.makeReader(for: request.body) }
        } catch let error as SluiceError {
            throw error
        } catch {
            throw SluiceError(.invalidBody, "The request body cannot be read: \(error).", underlyingError: error)
        }
        switch request.method {
        case .head:
            easy.settings.methodChanged = true
            try easy.set(CURLOPT_NOBODY, true)
        case .get where !hasBody:
            break  // the handle is set for a plain GET
        case .post:
            easy.settings.methodChanged = true
            try easy.set(CURLOPT_POST, true)
            try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, int64: length ?? -1)
        default:
            easy.settings.methodChanged = true
            try easy.set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
            if sendsBody {
                try easy.set(CURLOPT_UPLOAD, true)
                try easy.set(CURLOPT_INFILESIZE_LARGE, int64: length ?? -1)
            }
        }
        if sendsBody {
            // The seek callback refuses to rewind the body of a non-idempotent request, so libcurl
            // cannot silently send a POST again on a new connection after a stale one died.
            try easy.set(CURLOPT_READDATA, pointer: context.userData)
            try easy.set(CURLOPT_SEEKDATA, pointer: context.userData)
        }
        return false
    }

    /// Gives libcurl a copy of a small in-memory body, which it sends with the head. libcurl may
    /// send such a body again by itself (when a reused connection turns out dead) without asking to
    /// rewind it: the prerequest callback refuses that second attempt for a non-idempotent method
    /// (`TransferContext.beginAttempt`), as the seek callback does for a body read in pieces.
    /// A handle that still has the method options of a body sent this way by the same method
    /// (`settings.inlineMethod`) only gets the new body.
    private static func setInlineBody(_ data: Data, _ context: TransferContext) throws(SluiceError) {
        let easy = context.easy
        let method = context.request.method
        easy.settings.methodChanged = true
        easy.settings.inlineBody = true
        if easy.settings.inlineMethod != method {
            if method != .post { try easy.set(CURLOPT_CUSTOMREQUEST, method.rawValue) }
            // Recorded once the method is set: a failure leaves it nil, so the next transfer resets.
            easy.settings.inlineMethod = method
        }
        // The size first: COPYPOSTFIELDS copies that many bytes (the copy lives until the handle is
        // recycled or cleaned up; the request's `Data` has no stable address to lend).
        try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, int64: Int64(data.count))
        let code = data.withUnsafeBytes { bytes in
            sluice_easy_setopt_pointer(
                easy.raw, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
        }
        try Curl.check(code, "the request body")
        context.inlineBodyLength = Int64(data.count)
    }

    /// The request's header lines. Framing headers come from the body, not from the user;
    /// `Expect: 100-continue` is turned off (it costs a round trip) unless the user sets it, and so
    /// is the form Content-Type libcurl would invent for a POST that has none. With decompression
    /// on, the Accept-Encoding header libcurl would add is given here, made once: libcurl formats
    /// its own anew for every request.
    private static func headerLines(for request: Request, formByDefault: Bool, sendsBody: Bool) -> [String] {
        var lines: [String] = []
        lines.reserveCapacity(request.headers.count + 3)
        var hasExpect = false
        var hasAcceptEncoding = false
        if formByDefault && !request.headers.contains("Content-Type") { lines.append("Content-Type:") }
        for field in request.headers {
            if field.name.caseInsensitiveEquals("Content-Length")
                || field.name.caseInsensitiveEquals("Transfer-Encoding")
            {
                continue
            }
            if field.name.caseInsensitiveEquals("Expect") { hasExpect = true }
            if field.name.caseInsensitiveEquals("Accept-Encoding") { hasAcceptEncoding = true }
            // "Name;" is libcurl's syntax for a header with an empty value ("Name:" would remove it).
            lines.append(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        // libcurl only sends Expect with a body.
        if sendsBody && !hasExpect { lines.append("Expect:") }
        if request.options.decompress && !hasAcceptEncoding { lines.append(acceptEncodingLine) }
        return lines
    }

    /// The Accept-Encoding header for every coding libcurl decodes.
    private static let acceptEncodingLine = "Accept-Encoding: \(DefaultHeaders.acceptEncoding)"

    /// Whether an absolute URL's text starts with the https scheme, in any case (the URL was
    /// validated, so its text starts with its scheme; `URL.scheme` parses it again).
    static func isHTTPS(_ url: String) -> Bool {
        url.hasCaseInsensitivePrefix("https:")
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        max(1, Int(duration.wholeMilliseconds))
    }
}

extension EasyHandle {
    func set(_ option: CURLoption, callback: curl_write_callback) throws(SluiceError) {
        try Curl.check(sluice_easy_setopt_write_function(raw, option, callback), "callback option \(option.rawValue)")
    }

    func set(_ option: CURLoption, readCallback: curl_read_callback) throws(SluiceError) {
        try Curl.check(sluice_easy_setopt_read_function(raw, readCallback), "the read callback")
    }

    func set(seekCallback: curl_seek_callback) throws(SluiceError) {
        try Curl.check(sluice_easy_setopt_seek_function(raw, seekCallback), "the seek callback")
    }

    func set(prerequestCallback: curl_prereq_callback) throws(SluiceError) {
        try Curl.check(sluice_easy_setopt_prereq_function(raw, prerequestCallback), "the prerequest callback")
    }
}
