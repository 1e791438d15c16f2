internal import CCurl
import Foundation

/// Sets an easy handle's options for one request, with Sluice's safe defaults.
enum EasyConfigurator {
    /// Receive buffer for downloads to a file: raw libcurl goes from about 2 to 5 GB/s with it here.
    static let bulkReceiveBufferSize = 512 * 1024

    static func configure(_ context: TransferContext, configuration: CurlTransport.Configuration) throws(SluiceError) {
        let easy = context.easy
        let request = context.request
        let options = request.options

        try easy.set(CURLOPT_URL, request.url.absoluteString)
        // Only http and https, also for redirects libcurl might see (it follows none itself).
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_FOLLOWLOCATION, false)
        try easy.set(CURLOPT_NOSIGNAL, true)
        try easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(easy.errorBuffer))
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, milliseconds(options.connectTimeout))
        if let timeout = options.timeout { try easy.set(CURLOPT_TIMEOUT_MS, milliseconds(timeout)) }
        // An explicit empty proxy turns off libcurl's reading of http_proxy and friends.
        if let proxy = options.proxy {
            try easy.set(CURLOPT_PROXY, proxy)
        } else if !options.proxyFromEnvironment {
            try easy.set(CURLOPT_PROXY, "")
        }
        try easy.set(CURLOPT_SSL_VERIFYPEER, options.verifyTLS)
        try easy.set(CURLOPT_SSL_VERIFYHOST, options.verifyTLS ? 2 : 0)
        if options.decompress { try easy.set(CURLOPT_ACCEPT_ENCODING, "") }
        switch options.httpVersion {
        case .automatic: try easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        case .http1_1: try easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        case .http2: try easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE))
        }
        if request.url.scheme?.lowercased() == "https" {
            // Wait for a connection that can multiplex rather than opening another one.
            try easy.set(CURLOPT_PIPEWAIT, true)
        }
        if let size = options.receiveBufferSize {
            try easy.set(CURLOPT_BUFFERSIZE, size)
        } else if case .file = options.destination {
            try easy.set(CURLOPT_BUFFERSIZE, bulkReceiveBufferSize)
        }

        try easy.set(CURLOPT_HEADERFUNCTION, callback: headerCallback)
        try easy.set(CURLOPT_HEADERDATA, pointer: context.userData)
        try easy.set(CURLOPT_WRITEFUNCTION, callback: writeCallback)
        try easy.set(CURLOPT_WRITEDATA, pointer: context.userData)

        if case .file(let url) = options.destination {
            let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw SluiceError(
                    .fileWriteFailed, "Cannot open \(url.path) for the download: \(String(cString: strerror(errno))).")
            }
            context.outputDescriptor = descriptor
        }

        try configureMethodAndBody(context)
        try easy.setHeaders(headerLines(for: request))
    }

    private static func configureMethodAndBody(_ context: TransferContext) throws(SluiceError) {
        let easy = context.easy
        let request = context.request
        let length = request.body.knownLength
        let hasBody: Bool = {
            if case .empty = request.body { return false }
            return true
        }()
        // Methods that carry a body by convention send an empty one with Content-Length: 0.
        let sendsBody = hasBody || [.post, .put, .patch].contains(request.method)

        do {
            context.bodyReader = try TransferContext.makeReader(for: request.body)
        } catch let error as SluiceError {
            throw error
        } catch {
            throw SluiceError(.invalidBody, "The request body cannot be read: \(error).", underlyingError: error)
        }

        switch request.method {
        case .head:
            try easy.set(CURLOPT_NOBODY, true)
        case .get where !hasBody:
            try easy.set(CURLOPT_HTTPGET, true)
        case .post:
            try easy.set(CURLOPT_POST, true)
            try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, int64: length ?? -1)
        default:
            try easy.set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
            if sendsBody {
                try easy.set(CURLOPT_UPLOAD, true)
                try easy.set(CURLOPT_INFILESIZE_LARGE, int64: length ?? -1)
            }
        }
        if sendsBody {
            try easy.set(CURLOPT_READFUNCTION, readCallback: readCallback)
            try easy.set(CURLOPT_READDATA, pointer: context.userData)
            // The seek callback refuses to rewind the body of a non-idempotent request, so libcurl
            // cannot silently send a POST again on a new connection after a stale one died.
            try easy.set(seekCallback: seekCallback)
            try easy.set(CURLOPT_SEEKDATA, pointer: context.userData)
        }
    }

    /// The request's header lines. Framing headers come from the body, not from the user;
    /// `Expect: 100-continue` is turned off (it costs a round trip) unless the user sets it, and so
    /// is the form Content-Type libcurl would invent for a POST that has none.
    private static func headerLines(for request: Request) -> [String] {
        var lines: [String] = []
        var hasExpect = false
        if request.method == .post && !request.headers.contains("Content-Type") { lines.append("Content-Type:") }
        for field in request.headers {
            if field.name.caseInsensitiveEquals("Content-Length")
                || field.name.caseInsensitiveEquals("Transfer-Encoding")
            {
                continue
            }
            if field.name.caseInsensitiveEquals("Expect") { hasExpect = true }
            // "Name;" is libcurl's syntax for a header with an empty value ("Name:" would remove it).
            lines.append(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        if !hasExpect { lines.append("Expect:") }
        return lines
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
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
}
