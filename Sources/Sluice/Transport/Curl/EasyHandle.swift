internal import CCurl
import FoundationEssentials

/// Owns one libcurl easy handle. Used only on the transport's loop thread; not Sendable.
///
/// A pooled handle never carries an option from one request to the next: the options that never
/// change are set once when the handle is made, and every other one is set for every transfer, with
/// the request's value or libcurl's default, from one list (`EasyConfigurator.setRequestOptions`).
/// The handle remembers values only where the same value is the same request state: the URL it
/// holds, parsed (`setURL`), and its header list (`setHeaders`). Loop thread only, never accessed
/// overlapping: no run-time exclusivity checks on its state.
final class EasyHandle {
    let raw: UnsafeMutableRawPointer
    /// The request URL, parsed (CURLOPT_CURLU). Given only CURLOPT_URL, libcurl parses the text for
    /// every transfer and writes it out again normalized; given a parsed URL, it copies the parts.
    /// Here that saved about 11,000 instructions of a small GET's 61,000 when the URL repeats (a
    /// pooled handle keeps its URL) and about 5,000 when each request parses a new one. The handle
    /// owns it: libcurl only borrows it, so it is freed after `curl_easy_cleanup`. Not used for a
    /// URL with an IPv6 zone id (see `setURL`).
    private let parsedURL: OpaquePointer
    /// libcurl writes its error message here (CURLOPT_ERRORBUFFER needs CURL_ERROR_SIZE bytes).
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// Header lists must stay alive until the transfer is done.
    @exclusivity(unchecked) private var headerList: UnsafeMutablePointer<curl_slist>?
    /// The lines in `headerList`, so that the same headers are not copied into a new list.
    @exclusivity(unchecked) private var headerLines: [String] = []

    /// What the current header list was made from (nil: no list yet, or it must be made anew).
    @exclusivity(unchecked) var headerSource: HeaderSource?

    /// The host overrides of the latest request that had any, and the CURLOPT_CONNECT_TO list made
    /// of them: kept while requests repeat them, so the list is not made again for each one.
    @exclusivity(unchecked) var connectTo: (overrides: [HostOverride], list: CurlStringList)?

    /// The cookie store the handle's transfers use (CURLOPT_SHARE, libcurl's cookie engine on),
    /// nil for none; kept while requests use the same jar (see `EasyConfigurator.setCookieOptions`).
    /// Holding it keeps the share alive for as long as libcurl's handle points at it.
    @exclusivity(unchecked) var cookieShare: CookieShare?
    /// Whether `cookieShare` says what libcurl's handle holds (false after a failed change).
    @exclusivity(unchecked) var isCookieStateKnown = true

    /// The context of the transfer the handle runs (unretained: the loop's table keeps it alive
    /// while the handle is in the multi handle), nil between transfers. libcurl's header, write and
    /// prerequest callbacks and CURLOPT_PRIVATE point at the handle, set once when it is made, and
    /// reach the transfer through here: pointing them at each transfer's context took four
    /// `curl_easy_setopt` calls per request.
    @exclusivity(unchecked) var transfer: UnsafeMutableRawPointer?

    /// The handle behind a callback's user-data pointer or a CURLOPT_PRIVATE pointer.
    var userData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// The current transfer of the handle whose user-data pointer is `pointer` (read without
    /// retaining the handle, which its transfer's context keeps alive).
    @inline(__always)
    static func transfer(behind pointer: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        Unmanaged<EasyHandle>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.transfer }
    }

    /// The inputs of a request's header lines (see `EasyConfigurator`).
    struct HeaderSource {
        var headers: HTTPHeaders
        /// Whether libcurl would send the body as a form (a POST, or any body it holds in memory).
        var formByDefault: Bool
        var sendsBody: Bool
        var decompress: Bool
        /// Whether the Cookie fields went to CURLOPT_COOKIE instead of the lines (the cookie engine
        /// was on).
        var mergesCookies: Bool

        /// Whether a request with these inputs has this source, that is, would get the same lines:
        /// names compare exactly here, not case-insensitively as `HTTPHeaders` compares them, since
        /// a name's case goes on the wire.
        func isSame(
            headers: HTTPHeaders, formByDefault: Bool, sendsBody: Bool, decompress: Bool, mergesCookies: Bool
        ) -> Bool {
            self.formByDefault == formByDefault && self.sendsBody == sendsBody && self.decompress == decompress
                && self.mergesCookies == mergesCookies && self.headers.isIdentical(to: headers)
        }
    }

    /// The URL in CURLOPT_URL and (unless it has a zone id) in the parsed URL; nil while unknown.
    @exclusivity(unchecked) private var url: String?
    /// Whether that URL is an https one (see `EasyConfigurator.isHTTPS`).
    @exclusivity(unchecked) private(set) var isHTTPS = false
    /// Whether CURLOPT_CURLU points at the handle's parsed URL.
    @exclusivity(unchecked) private var isParsedURLAttached = false
    /// Whether CURLOPT_POSTFIELDS may hold a copy of a body (see `dropInlineBody`).
    @exclusivity(unchecked) private var holdsBodyCopy = false

    init() throws(SluiceError) {
        Curl.globalInit
        guard let raw = curl_easy_init() else {
            throw SluiceError(.transportFailure, "curl_easy_init failed (out of memory?).")
        }
        guard let parsedURL = curl_url() else {
            curl_easy_cleanup(raw)
            throw SluiceError(.transportFailure, "curl_url failed (out of memory?).")
        }
        self.raw = raw
        self.parsedURL = parsedURL
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    /// Makes `url` the request's URL: parsed as libcurl parses CURLOPT_URL, and as text in
    /// CURLOPT_URL too, which libcurl reports (CURLINFO_EFFECTIVE_URL) and requests again by itself
    /// (its retry on a dead reused connection, after a 417, for an authentication round). A handle
    /// that holds `url` already keeps it: both options then have the value they would be given.
    func setURL(_ url: String) throws(SluiceError) {
        if url == self.url { return }
        // Until both hold the new URL, the handle's URL is unknown: a failure makes the next
        // transfer set it again, whatever its URL.
        self.url = nil
        if Self.hasZoneID(url) {
            // libcurl 7.88.1 copies a parsed URL for each transfer without its zone id
            // (curl_url_dup; later releases fixed it), and a link-local address cannot be reached without
            // one: such a URL goes to libcurl as text only.
            if isParsedURLAttached {
                try set(CURLOPT_CURLU, pointer: nil)
                isParsedURLAttached = false
            }
        } else {
            // The flags libcurl itself parses CURLOPT_URL with (it adds username and path flags
            // only for options Sluice does not set).
            let flags = UInt32(CURLU_GUESS_SCHEME) | UInt32(CURLU_NON_SUPPORT_SCHEME)
            let code = url.withCString { curl_url_set(parsedURL, CURLUPART_URL, $0, flags) }
            guard code == CURLUE_OK else {
                let reason = String(cString: curl_url_strerror(code))
                if code == CURLUE_OUT_OF_MEMORY {
                    throw SluiceError(
                        .transportFailure, "libcurl ran out of memory parsing \(url): \(reason).",
                        curlCode: Int(CURLE_OUT_OF_MEMORY.rawValue))
                }
                throw SluiceError(
                    .invalidURL, "libcurl could not parse \(url): \(reason).",
                    curlCode: Int(CURLE_URL_MALFORMAT.rawValue))
            }
            if !isParsedURLAttached {
                try set(CURLOPT_CURLU, pointer: UnsafeMutableRawPointer(parsedURL))
                isParsedURLAttached = true
            }
        }
        try set(CURLOPT_URL, url)
        self.url = url
        isHTTPS = EasyConfigurator.isHTTPS(url)
    }

    /// Whether the URL's host is an IPv6 literal with a zone id (`http://[fe80::1%25eth0]/`).
    static func hasZoneID(_ url: String) -> Bool {
        var url = url
        // One pass over the bytes: `firstRange(of:)` on the UTF-8 view took ~20,000 instructions
        // (a generic search that allocates), for every transfer whose URL differs from the handle's.
        return url.withUTF8 { bytes in
            var index = 0
            // Past `scheme://`.
            while index + 2 < bytes.count {
                if bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"),
                    bytes[index + 2] == UInt8(ascii: "/")
                {
                    break
                }
                index += 1
            }
            guard index + 2 < bytes.count else { return false }
            var inLiteral = false
            for byte in bytes[(index + 3)...] {
                switch byte {
                case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): return false
                case UInt8(ascii: "["): inLiteral = true
                case UInt8(ascii: "]"): inLiteral = false
                case UInt8(ascii: "%") where inLiteral: return true
                default: break
                }
            }
            return false
        }
    }

    @inline(__always)
    func set(_ option: CURLoption, _ value: Int) throws(SluiceError) {
        try Curl.check(sluice_easy_setopt_long(raw, option, value), "option \(option.rawValue) = \(value)")
    }

    @inline(__always)
    func set(_ option: CURLoption, _ value: Bool) throws(SluiceError) {
        try set(option, value ? 1 : 0)
    }

    @inline(__always)
    func set(_ option: CURLoption, int64 value: Int64) throws(SluiceError) {
        try Curl.check(sluice_easy_setopt_off_t(raw, option, curl_off_t(value)), "option \(option.rawValue) = \(value)")
    }

    @inline(__always)
    func set(_ option: CURLoption, _ value: String) throws(SluiceError) {
        // libcurl copies string options (since 7.17), so the temporary C string may go away.
        try Curl.check(value.withCString { sluice_easy_setopt_string(raw, option, $0) }, "option \(option.rawValue)")
    }

    /// Sets a string option, or puts it back to libcurl's default with nil.
    @inline(__always)
    func set(_ option: CURLoption, optional value: String?) throws(SluiceError) {
        if let value {
            try set(option, value)
        } else {
            try Curl.check(sluice_easy_setopt_string(raw, option, nil), "option \(option.rawValue)")
        }
    }

    @inline(__always)
    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(SluiceError) {
        try Curl.check(sluice_easy_setopt_pointer(raw, option, pointer), "option \(option.rawValue)")
    }

    /// Gives libcurl a copy of `body` (CURLOPT_COPYPOSTFIELDS, which also makes the method a POST):
    /// the request's `Data` has no stable address to lend. The size must be set first
    /// (CURLOPT_POSTFIELDSIZE_LARGE), since libcurl copies that many bytes.
    func setBodyCopy(_ body: Data) throws(SluiceError) {
        holdsBodyCopy = true
        let code = body.withUnsafeBytes { bytes in
            sluice_easy_setopt_pointer(
                raw, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
        }
        try Curl.check(code, "the request body")
    }

    /// Sets CURLOPT_POSTFIELDS to nil, letting go of the copy of a body libcurl holds (which makes
    /// libcurl's method a POST).
    func clearBody() throws(SluiceError) {
        try Curl.check(sluice_easy_setopt_pointer(raw, CURLOPT_POSTFIELDS, nil), "the request body")
        holdsBodyCopy = false
    }

    /// Lets go of the copy of a body libcurl holds, if any, so that an idle handle keeps none (it
    /// may be a login form's). The next transfer sets the body options anew all the same.
    func dropInlineBody() {
        guard holdsBodyCopy else { return }
        _ = sluice_easy_setopt_pointer(raw, CURLOPT_POSTFIELDS, nil)
        holdsBodyCopy = false
    }

    /// Replaces the request's header lines; keeps the current list when the lines are the same.
    func setHeaders(_ lines: [String]) throws(SluiceError) {
        if lines == headerLines { return }
        freeHeaders()
        for line in lines {
            headerList = line.withCString { curl_slist_append(headerList, $0) }
        }
        // Record the lines only once libcurl holds the list, so a failure makes the next call retry.
        try Curl.check(sluice_easy_setopt_slist(raw, CURLOPT_HTTPHEADER, headerList), "the header list")
        headerLines = lines
    }

    func info(_ info: CURLINFO) -> Int {
        var value = 0
        _ = sluice_easy_getinfo_long(raw, info, &value)
        return value
    }

    func info(int64 info: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        _ = sluice_easy_getinfo_off_t(raw, info, &value)
        return Int64(value)
    }

    /// A string that libcurl keeps, valid until the handle's next transfer or its cleanup.
    func info(cString info: CURLINFO) -> UnsafePointer<CChar>? {
        Self.info(cString: info, of: raw).map { UnsafePointer($0) }
    }

    /// The context of the transfer a raw easy handle runs, found through its CURLOPT_PRIVATE pointer.
    static func transfer(ofRaw raw: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        info(cString: CURLINFO_PRIVATE, of: raw).flatMap { transfer(behind: UnsafeMutableRawPointer($0)) }
    }

    private static func info(cString info: CURLINFO, of raw: UnsafeMutableRawPointer) -> UnsafeMutablePointer<CChar>? {
        var value: UnsafeMutablePointer<CChar>?
        guard sluice_easy_getinfo_string(raw, info, &value) == CURLE_OK else { return nil }
        return value
    }

    var errorMessage: String { String(cString: errorBuffer) }

    /// Readies the handle for another request. Its options stay until the next transfer sets every
    /// per-request one again; libcurl's caches are kept.
    func reuse() {
        errorBuffer[0] = 0
    }

    private func freeHeaders() {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        headerLines = []
        headerSource = nil
    }

    deinit {
        // Only ever released on the loop thread, after it was removed from the multi handle.
        curl_easy_cleanup(raw)
        curl_url_cleanup(parsedURL)
        freeHeaders()
        errorBuffer.deallocate()
    }
}
