internal import CCurl
import Glibc

/// Owns the libcurl multi handle of one transport. Used only on the loop thread; not Sendable.
final class MultiHandle {
    let raw: UnsafeMutableRawPointer
    /// The sockets of this multi handle's connections. Released after `curl_multi_cleanup`, which
    /// closes the last of them through it.
    let sockets = SocketTable()

    init(maximumConnections: Int, maximumConnectionsPerHost: Int, connectionCacheSize: Int) throws(SluiceError) {
        Curl.globalInit
        guard let raw = curl_multi_init() else {
            throw SluiceError(.transportFailure, "curl_multi_init failed (out of memory?).")
        }
        self.raw = raw
        try set(CURLMOPT_MAXCONNECTS, connectionCacheSize)
        try set(CURLMOPT_MAX_TOTAL_CONNECTIONS, maximumConnections)
        try set(CURLMOPT_MAX_HOST_CONNECTIONS, maximumConnectionsPerHost)
        try set(CURLMOPT_PIPELINING, SLUICE_PIPE_MULTIPLEX)
    }

    func set(_ option: CURLMoption, _ value: Int) throws(SluiceError) {
        try Curl.check(sluice_multi_setopt_long(raw, option, value), "multi option \(option.rawValue) = \(value)")
    }

    func add(_ easy: EasyHandle) throws(SluiceError) {
        try Curl.check(curl_multi_add_handle(raw, easy.raw), "curl_multi_add_handle")
    }

    func remove(_ easy: EasyHandle) {
        _ = curl_multi_remove_handle(raw, easy.raw)
    }

    /// Drives every transfer as far as it can go without blocking.
    func perform() throws(SluiceError) {
        var running: Int32 = 0
        try Curl.check(curl_multi_perform(raw, &running), "curl_multi_perform")
    }

    /// Waits for socket activity, libcurl's next timeout, `timeoutMilliseconds`, or `wakeFD` to be
    /// readable; returns whether `wakeFD` was readable (so it needs draining).
    @discardableResult
    func poll(wakeFD: Int32, timeoutMilliseconds: Int32) throws(SluiceError) -> Bool {
        var extra = curl_waitfd(fd: wakeFD, events: Int16(CURL_WAIT_POLLIN), revents: 0)
        var ready: Int32 = 0
        try Curl.check(curl_multi_poll(raw, &extra, 1, timeoutMilliseconds, &ready), "curl_multi_poll")
        return extra.revents != 0
    }

    /// Hands every finished transfer to `body`, with its result, as libcurl reports them. `body`
    /// may remove the handle (libcurl allows that between two reads of its messages: each message's
    /// fields are read before `body` runs), and no array is made for a batch.
    func forEachFinishedTransfer(_ body: (UnsafeMutableRawPointer, CURLcode) -> Void) {
        var left: Int32 = 0
        while let message = curl_multi_info_read(raw, &left) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                body(easy, sluice_msg_result(message))
            }
        }
    }

    deinit {
        // libcurl's order: every easy handle is removed first (the loop does that), then the multi.
        curl_multi_cleanup(raw)
    }
}
