internal import CCurl
internal import CTLSEnd

// A body read to the close of a TLS connection is whole only if the server ended the connection
// with close_notify: a bare TCP close may be an attacker cutting the body short, and libcurl 7.88
// takes one as the end of the data (its OpenSSL input reports no end of file, so OpenSSL 3 reports
// the close as a system call error without an error, which libcurl reads as the end). A body with a
// Content-Length or chunks is framed by them, and HTTP/2 frames its streams: only this one case
// needs the connection's end (Docs/Decisions.md, TLS).
extension TransferContext {
    /// Watches how the TLS connection ends when the final head, just received, frames its body by
    /// the close (over HTTP/1, a status and a method that have a body), unless the request's TLS
    /// configuration accepts a bare close. A watch of an earlier final head of the same transfer
    /// (libcurl may send the request again by itself) is let go first.
    func watchTLSEnd(status: Int) {
        if let earlier = tlsEndWatch {
            sluice_tls_end_watch_release(earlier)
            tlsEndWatch = nil
        }
        guard parser.isReadToClose, parser.version == .http1_1 || parser.version == .http1_0,
            hasBody(status: status), tls.requiresCloseNotify,
            let connection = sluice_easy_openssl_connection(easy.raw)
        else { return }
        tlsEndWatch = sluice_tls_end_watch_start(connection)
    }

    /// Whether the transfer's body was read to a TLS close without close_notify. A connection still
    /// open counts as one: libcurl closes a connection whose body was read to the close before it
    /// reports the transfer, unless the close was bare and the response asked to keep it (an
    /// HTTP/1.0 keep-alive without a length).
    var endedWithoutCloseNotify: Bool {
        guard let tlsEndWatch else { return false }
        return sluice_tls_end_watch_ending(tlsEndWatch) != Int32(sluice_tls_ending_notified.rawValue)
    }
}
