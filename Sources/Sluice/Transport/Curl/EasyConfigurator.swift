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
    /// reset (every other option is set for each transfer, see `setRequestOptions`). `sockets` is
    /// the table of the multi handle the handle runs in.
    static func makeHandle(sockets: SocketTable) throws(SluiceError) -> EasyHandle {
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
        // Every socket of a connection goes into the multi handle's table and is closed through it
        // (see `SocketTable`).
        try easy.set(socketOpenedCallback: socketOpenedCallback, closeSocketCallback: closeSocketCallback)
        try easy.set(CURLOPT_SOCKOPTDATA, pointer: sockets.userData)
        try easy.set(CURLOPT_CLOSESOCKETDATA, pointer: sockets.userData)
        return easy
    }

    /// Readies a handle for one request: every per-request option (`setRequestOptions`), then the
    /// header lines.
    static func configure(_ context: TransferContext, configuration: CurlTransport.Configuration) throws(SluiceError) {
        let easy: EasyHandle = context.easy
        let request = context.request

        // The callbacks' way to the transfer, and the loop's from a finished handle to its context.
        easy.transfer = context.userData

        // Methods that carry a body by convention send an empty one with Content-Length: 0.
        let sendsBody = context.hasBody || request.method == .post || request.method == .put || request.method == .patch
        // A small in-memory body goes to libcurl whole, sent with the head (see `inlineBodyLimit`);
        // a HEAD sends no body (libcurl must know it for what it is, to expect no body back). Any
        // other body is read in pieces.
        var inlineBody: Data? = nil
        if context.hasBody, case .data(let data) = request.body, !data.isEmpty, data.count <= inlineBodyLimit,
            request.method != .head
        {
            inlineBody = data
        } else if context.hasBody {
            do {
                context.bodyReader = try TransferContext.makeReader(for: request.body)
            } catch let error as SluiceError {
                throw error
            } catch {
                throw SluiceError(.invalidBody, "The request body cannot be read: \(error).", underlyingError: error)
            }
        }

        try setRequestOptions(context, inlineBody: inlineBody, sendsBody: sendsBody)

        // libcurl sends a POST, and any request whose body it holds in memory, as a form unless told
        // otherwise.
        let formByDefault = request.method == .post || inlineBody != nil
        // The header lines depend on these only; a pooled handle that sent the same ones keeps its
        // list without the lines being formatted again (the defaults usually share their storage,
        // which makes the comparison a pointer check): the same lines are the same request state.
        // (Compared in place: making the request's source first copied its headers for nothing.)
        let decompress = request.options.decompress
        // With the cookie engine on, the request's own Cookie header goes to libcurl as
        // CURLOPT_COOKIE, which it joins to the jar's cookies in one Cookie line: as a header line
        // of its own it went out beside libcurl's, two Cookie lines (RFC 6265 allows one).
        let mergesCookies = easy.cookieShare != nil
        let isSameSource =
            easy.headerSource?.isSame(
                headers: request.headers, formByDefault: formByDefault, sendsBody: sendsBody, decompress: decompress,
                mergesCookies: mergesCookies)
            ?? false
        if !isSameSource {
            // Unknown until both are set: a failure makes the next transfer set them again.
            easy.headerSource = nil
            let (lines, cookie) = headerLines(
                for: request, formByDefault: formByDefault, sendsBody: sendsBody, mergesCookies: mergesCookies)
            try easy.setHeaders(lines)
            // Kept with the header list: the same lines are the same Cookie value.
            try easy.set(CURLOPT_COOKIE, optional: cookie)
            easy.headerSource = EasyHandle.HeaderSource(
                headers: request.headers, formByDefault: formByDefault, sendsBody: sendsBody, decompress: decompress,
                mergesCookies: mergesCookies)
        }

        // The output file last, once every option was taken: opening it empties a `.file`
        // destination, which a request refused by an option must leave as it was.
        if let url = request.options.destination.openedFile {
            let descriptor = openForDownload(url, truncating: request.options.destination == .file(url))
            guard descriptor >= 0 else {
                throw SluiceError(
                    .fileWriteFailed, "Cannot open \(url.path) for the download: \(String(cString: strerror(errno))).")
            }
            context.outputDescriptor = descriptor
        }
    }

    /// Sets every per-request option, each with the request's value or libcurl's default, for every
    /// transfer: the one list of them. A pooled handle so never carries an option from one request
    /// to the next, and an option added later is one more row here. Only the URL (`setURL`) and
    /// the header list (`configure`) are kept while a request repeats them: the same value is the
    /// same request state. Setting every row costs ~1,900 instructions per request
    /// (Docs/Decisions.md).
    private static func setRequestOptions(
        _ context: TransferContext, inlineBody: Data?, sendsBody: Bool
    ) throws(SluiceError) {
        let easy: EasyHandle = context.easy
        let request = context.request

        // The method options: libcurl's defaults (a plain GET) unless the request needs others.
        // NOBODY, POST or UPLOAD, turned on (at most one):
        var method: CURLoption? = nil
        var customMethod: String? = nil
        var postFieldSize: Int64 = -1
        var inFileSize: Int64 = -1
        // The read and seek callbacks' context: nil, their guard, unless the body is read in pieces.
        var bodySource: UnsafeMutableRawPointer? = nil
        if let inlineBody {
            // The copy of the body (CURLOPT_COPYPOSTFIELDS) makes libcurl's method a POST.
            if request.method != .post { customMethod = request.method.rawValue }
            postFieldSize = Int64(inlineBody.count)
        } else {
            switch request.method {
            case .head: method = CURLOPT_NOBODY
            case .get where !context.hasBody: break
            case .post:
                method = CURLOPT_POST
                postFieldSize = context.expectedUpload ?? -1
            default:
                customMethod = request.method.rawValue
                if sendsBody {
                    method = CURLOPT_UPLOAD
                    inFileSize = context.expectedUpload ?? -1
                }
            }
            // The seek callback refuses to rewind the body of a non-idempotent request, so libcurl
            // cannot silently send a POST again on a new connection after a stale one died.
            if sendsBody { bodySource = context.userData }
        }
        let httpVersion: Int
        switch request.options.httpVersion {
        case .automatic: httpVersion = Int(CURL_HTTP_VERSION_2TLS)
        case .http1_1: httpVersion = Int(CURL_HTTP_VERSION_1_1)
        case .http2: httpVersion = Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        }
        var bufferSize = request.options.receiveBufferSize
        if bufferSize == nil, request.options.destination.openedFile != nil { bufferSize = bulkReceiveBufferSize }

        // CURLOPT_CURLU and CURLOPT_URL, kept while the URL repeats (see `EasyHandle.setURL`).
        try easy.setURL(context.urlText)
        // Wait for a connection that can multiplex rather than opening another one.
        try easy.set(CURLOPT_PIPEWAIT, easy.isHTTPS)
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, milliseconds(request.options.connectTimeout))
        try easy.set(CURLOPT_TIMEOUT_MS, request.options.timeout.map(milliseconds) ?? 0)
        // Where the connection goes: proxy, host overrides, IP version, Unix socket.
        try setConnectionOptions(easy, request.options)
        // The cookie engine, with the jar's store, or neither.
        try setCookieOptions(easy, request.options.cookieShare)
        // Every https transfer sets every TLS option. An http one leaves them as they are: libcurl
        // reads them only to make a TLS connection to the origin, which an http URL never needs
        // here (redirects are new transfers; HSTS and Alt-Svc are off; a proxy's TLS has options
        // of its own, set above), and they are thirteen calls into libcurl.
        if easy.isHTTPS { try setTLSOptions(context.tls, on: easy) }
        // Any value turns decoding on (of every coding libcurl decodes); libcurl sends it only in an
        // Accept-Encoding line of its own, which the request's lines always replace when decoding
        // is on (`headerLines`). The codings by name: given "", libcurl makes that list anew each
        // time (~1,600 instructions).
        try easy.set(CURLOPT_ACCEPT_ENCODING, optional: request.options.decompress ? acceptedCodings : nil)
        try easy.set(CURLOPT_HTTP_VERSION, httpVersion)
        try easy.set(CURLOPT_BUFFERSIZE, bufferSize ?? Int(CURL_MAX_WRITE_SIZE))
        // The method and the body, in this order. Letting go of a body (POSTFIELDS) makes the method
        // a POST, which HTTPGET undoes; HTTPGET puts the method, NOBODY and UPLOAD back to libcurl's
        // defaults; then NOBODY, POST or UPLOAD on, if any.
        try easy.clearBody()
        try easy.set(CURLOPT_HTTPGET, true)
        if let method { try easy.set(method, true) }
        try easy.set(CURLOPT_CUSTOMREQUEST, optional: customMethod)
        // Before the body's copy (below): libcurl copies that many bytes.
        try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, int64: postFieldSize)
        try easy.set(CURLOPT_INFILESIZE_LARGE, int64: inFileSize)
        try easy.set(CURLOPT_READDATA, pointer: bodySource)
        try easy.set(CURLOPT_SEEKDATA, pointer: bodySource)
        if let inlineBody {
            // libcurl may send such a body again by itself (when a reused connection turns out dead)
            // without asking to rewind it: the prerequest callback refuses that second attempt for a
            // non-idempotent method (`TransferContext.beginAttempt`), as the seek callback does for a
            // body read in pieces.
            try easy.setBodyCopy(inlineBody)
            context.inlineBodyLength = Int64(inlineBody.count)
        }
    }

    /// Attaches a jar's cookie store (CURLOPT_SHARE) and turns libcurl's cookie engine on
    /// (CURLOPT_COOKIEFILE "", no file), or detaches it and turns the engine off (both NULL). A
    /// handle keeps them while requests use the same jar: the same jar is the same request state,
    /// and setting the engine on again costs ~6,000 instructions per request (libcurl then reloads
    /// its list of cookie files). Turning it off takes both: left with CURLOPT_COOKIEFILE set, a
    /// handle without the share makes a private cookie store of its own on its next transfer, whose
    /// cookies a later request on the handle would send (Docs/Decisions.md, Cookies).
    static func setCookieOptions(_ easy: EasyHandle, _ share: CookieShare?) throws(SluiceError) {
        if easy.isCookieStateKnown && easy.cookieShare === share { return }
        // Unknown until both are set: a failure makes the next transfer set them again.
        easy.isCookieStateKnown = false
        try Curl.check(sluice_easy_setopt_share(easy.raw, share?.raw), "the cookie share")
        // The store libcurl's handle points at now; the previous one may go only now.
        easy.cookieShare = share
        try easy.set(CURLOPT_COOKIEFILE, optional: share == nil ? nil : "")
        easy.isCookieStateKnown = true
    }

    /// Opens the file a download goes to, created, and truncated unless it is a partial file whose
    /// bytes the response decides about (see `TransferContext.positionOutput`); returns the
    /// descriptor, or -1 with `errno` set.
    private static func openForDownload(_ url: URL, truncating: Bool) -> Int32 {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (truncating ? O_TRUNC : 0)
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

    /// The request's header lines. Framing headers come from the body, not from the user;
    /// `Expect: 100-continue` is turned off (it costs a round trip) unless the user sets it, and so
    /// is the form Content-Type libcurl would invent for a POST that has none. With decompression
    /// on, the Accept-Encoding header libcurl would add is given here, made once: libcurl formats
    /// its own anew for every request.
    /// With `mergesCookies`, the request's Cookie fields are left out of the lines and returned
    /// joined, for CURLOPT_COOKIE.
    private static func headerLines(
        for request: Request, formByDefault: Bool, sendsBody: Bool, mergesCookies: Bool
    ) -> (lines: [String], cookie: String?) {
        var lines: [String] = []
        lines.reserveCapacity(request.headers.count + 3)
        var hasExpect = false
        var hasAcceptEncoding = false
        var cookie: String? = nil
        if formByDefault && !request.headers.contains("Content-Type") { lines.append("Content-Type:") }
        for field in request.headers {
            if field.name.caseInsensitiveEquals("Content-Length")
                || field.name.caseInsensitiveEquals("Transfer-Encoding")
            {
                continue
            }
            if mergesCookies && field.name.caseInsensitiveEquals("Cookie") {
                if !field.value.isEmpty { cookie = cookie.map { "\($0); \(field.value)" } ?? field.value }
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
        return (lines, cookie)
    }

    /// Every coding libcurl decodes, and the Accept-Encoding header naming them.
    private static let acceptedCodings = DefaultHeaders.acceptEncoding
    private static let acceptEncodingLine = "Accept-Encoding: \(acceptedCodings)"

    /// Whether an absolute URL's text starts with the https scheme, in any case (the URL was
    /// validated, so its text starts with its scheme; `URL.scheme` parses it again).
    static func isHTTPS(_ url: String) -> Bool {
        url.hasCaseInsensitivePrefix("https:")
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        // The default connect timeout without `Duration`'s 128-bit division (~180 instructions).
        if duration == defaultConnectTimeout.duration { return defaultConnectTimeout.milliseconds }
        return max(1, Int(duration.wholeMilliseconds))
    }

    private static let defaultConnectTimeout = (
        duration: RequestOptions().connectTimeout, milliseconds: Int(RequestOptions().connectTimeout.wholeMilliseconds)
    )
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

    func set(
        socketOpenedCallback: curl_sockopt_callback, closeSocketCallback: curl_closesocket_callback
    ) throws(SluiceError) {
        try Curl.check(sluice_easy_setopt_sockopt_function(raw, socketOpenedCallback), "the socket option callback")
        try Curl.check(sluice_easy_setopt_closesocket_function(raw, closeSocketCallback), "the close socket callback")
    }
}
