internal import CCurl

// A body read to the close of a TLS connection is whole only if the server ended the connection
// with close_notify: a bare TCP close may be an attacker cutting the body short, and libcurl 7.88
// takes one as the end of the data (its OpenSSL input reports no end of file, so OpenSSL 3 reports
// the close as a system call error without an error, which libcurl reads as the end). A body with a
// Content-Length or chunks is framed by them, and HTTP/2 frames its streams: only this one case
// needs the connection's end.
extension TransferContext {
    /// Watches how the TLS connection ends when the final head, just received, frames its body by
    /// the close (over HTTP/1, a status and a method that have a body). libcurl closes such a
    /// connection, which frees its OpenSSL object, before it reports the transfer finished.
    func watchTLSEnd(status: Int) {
        guard parser.isReadToClose, parser.version == .http1_1 || parser.version == .http1_0,
            status != 204, status != 304, request.method != .head,
            let connection = sluice_easy_openssl_connection(easy.raw)
        else { return }
        tlsEndWatch = sluice_tls_end_watch_start(Self.tlsEnd, connection)
    }

    /// Whether the transfer's body was read to a TLS close without close_notify (or to a
    /// connection that is, against libcurl's order, still open: nothing says the body is whole).
    var endedWithoutCloseNotify: Bool {
        guard let tlsEndWatch else { return false }
        return sluice_tls_end_watch_ending(tlsEndWatch) != 1
    }

    /// OpenSSL's functions for the watch, in the OpenSSL libcurl loaded.
    private static let tlsEnd = sluice_tls_end_lookup()
}
