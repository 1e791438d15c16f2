internal import CCurl
import FoundationEssentials
import Synchronization

/// libcurl's cookie store for one jar: a share handle (CURL_LOCK_DATA_COOKIE) that each transfer
/// with the jar attaches to its easy handle, so libcurl stores every hop's cookies and sends those
/// that match it, with its public-suffix (libpsl) and RFC 6265 rules; and a handle of the jar's own
/// that lists, adds and removes cookies from the user's threads. The share is locked (one mutex,
/// in the C shim) because those threads and the transport's thread use it at once.
///
/// An easy handle that holds the share keeps a reference to this object (`EasyHandle.cookieShare`),
/// so the share is freed only once no handle uses it (libcurl refuses to free a share in use).
final class CookieShare: @unchecked Sendable {
    // `@unchecked Sendable`: the share is locked by libcurl through the shim's callbacks, and the
    // jar's own handle is used only while `lock` is held.
    let raw: UnsafeMutablePointer<sluice_share>
    private let control: UnsafeMutableRawPointer
    private let lock = Lock(())

    init() throws(SluiceError) {
        Curl.globalInit
        guard let raw = sluice_cookie_share_new() else {
            throw SluiceError(.transportFailure, "libcurl could not make a share handle for cookies (out of memory?).")
        }
        guard let control = curl_easy_init() else {
            sluice_cookie_share_free(raw)
            throw SluiceError(.transportFailure, "curl_easy_init failed (out of memory?).")
        }
        let code = sluice_easy_setopt_share(control, raw)
        guard code == CURLE_OK else {
            curl_easy_cleanup(control)
            sluice_cookie_share_free(raw)
            throw SluiceError(
                .transportFailure, "libcurl refused the cookie share: \(String(cString: curl_easy_strerror(code))).")
        }
        self.raw = raw
        self.control = control
    }

    /// Every cookie libcurl holds, as lines of the Netscape format (expired ones included until
    /// libcurl next sweeps them).
    func lines() -> [String] {
        lock.withLock { _ in
            var list: UnsafeMutablePointer<curl_slist>? = nil
            guard sluice_easy_getinfo_slist(control, CURLINFO_COOKIELIST, &list) == CURLE_OK else { return [] }
            defer { curl_slist_free_all(list) }
            var lines: [String] = []
            var node = list
            while let current = node {
                if let data = current.pointee.data { lines.append(String(cString: data)) }
                node = current.pointee.next
            }
            return lines
        }
    }

    /// Hands libcurl one CURLOPT_COOKIELIST command each: a cookie line, or `ALL` / `SESS`.
    func send(_ commands: [String]) throws(SluiceError) {
        // `Lock`, not `Mutex`: the transport's thread and the user's contend for it, and a
        // contended `Mutex` hands over in the kernel, where the thread sanitizer cannot see it.
        let refused = lock.withLock { _ -> SluiceError? in
            for command in commands {
                let code = command.withCString { sluice_easy_setopt_string(control, CURLOPT_COOKIELIST, $0) }
                guard code == CURLE_OK else {
                    return SluiceError(
                        .invalidCookie,
                        "libcurl refused the cookie \(command.debugDescription): \(String(cString: curl_easy_strerror(code))).",
                        curlCode: Int(code.rawValue))
                }
            }
            return nil
        }
        if let refused { throw refused }
    }

    deinit {
        curl_easy_cleanup(control)
        sluice_cookie_share_free(raw)
    }
}
