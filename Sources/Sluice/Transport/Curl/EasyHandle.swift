internal import CCurl

/// Owns one libcurl easy handle. Used only on the transport's loop thread; not Sendable.
final class EasyHandle {
    let raw: UnsafeMutableRawPointer
    /// libcurl writes its error message here (CURLOPT_ERRORBUFFER needs CURL_ERROR_SIZE bytes).
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// Header lists must stay alive until the transfer is done.
    private var headerList: UnsafeMutablePointer<curl_slist>?

    init() throws(SluiceError) {
        Curl.globalInit
        guard let raw = curl_easy_init() else {
            throw SluiceError(.transportFailure, "curl_easy_init failed (out of memory?).")
        }
        self.raw = raw
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    func set(_ option: CURLoption, _ value: Int) throws(SluiceError) {
        try Curl.check(sluice_easy_setopt_long(raw, option, value), "option \(option.rawValue) = \(value)")
    }

    func set(_ option: CURLoption, _ value: Bool) throws(SluiceError) {
        try set(option, value ? 1 : 0)
    }

    func set(_ option: CURLoption, int64 value: Int64) throws(SluiceError) {
        try Curl.check(sluice_easy_setopt_off_t(raw, option, curl_off_t(value)), "option \(option.rawValue) = \(value)")
    }

    func set(_ option: CURLoption, _ value: String) throws(SluiceError) {
        // libcurl copies string options (since 7.17), so the temporary C string may go away.
        try Curl.check(value.withCString { sluice_easy_setopt_string(raw, option, $0) }, "option \(option.rawValue)")
    }

    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(SluiceError) {
        try Curl.check(sluice_easy_setopt_pointer(raw, option, pointer), "option \(option.rawValue)")
    }

    /// Replaces the request's header lines.
    func setHeaders(_ lines: [String]) throws(SluiceError) {
        freeHeaders()
        for line in lines {
            headerList = line.withCString { curl_slist_append(headerList, $0) }
        }
        try Curl.check(sluice_easy_setopt_slist(raw, CURLOPT_HTTPHEADER, headerList), "the header list")
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

    func info(string info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard sluice_easy_getinfo_string(raw, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    var errorMessage: String { String(cString: errorBuffer) }

    /// Clears every option so the handle can serve another request; keeps libcurl's caches.
    func reset() {
        curl_easy_reset(raw)
        freeHeaders()
        errorBuffer[0] = 0
    }

    private func freeHeaders() {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
    }

    deinit {
        // Only ever released on the loop thread, after it was removed from the multi handle.
        curl_easy_cleanup(raw)
        freeHeaders()
        errorBuffer.deallocate()
    }
}
