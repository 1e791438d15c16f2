internal import CCurl
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

// How a transfer ends: the response or the events it delivers, libcurl's metrics, the total
// timeout and the output file.
extension TransferContext {
    /// Delivers the outcome of a transfer that finished well (after its head was sent). The
    /// metrics are moved into the response, not copied: a copy retains each of their strings.
    func succeed(_ metrics: consuming TransferMetrics) {
        // 100%: the last bytes are reported even when a throttled chunk carried them.
        if reportedSent >= 0, reportedSent != sent { reportUpload() }
        if received > 0, reportedReceived != received { reportDownload() }
        switch sink {
        case .events(let observer):
            observer.send(value: .completed(consume metrics))
            observer.sendCompleted()
        case .response:
            // Taken, not copied: the context keeps no reference to the response's fields.
            guard let head = head.take() else {
                deliver(.failure(SluiceError(.protocolError, "The transfer completed without a response head.")))
                return
            }
            let fileURL = bodyToFile ? request.options.destination.openedFile : nil
            // Swapped out, not copied and replaced: no retain and release of its storage.
            var body = Data()
            swap(&body, &self.body)
            deliver(
                .success(
                    Response(
                        status: head.status, headers: head.headers, httpVersion: head.httpVersion, body: body,
                        fileURL: fileURL, metrics: consume metrics, request: request)))
        }
    }

    /// What libcurl measured; the remote address's text comes from `addresses` when it is the
    /// previous transfer's.
    func metrics(addresses: inout RemoteAddressCache) -> TransferMetrics {
        var metrics = TransferMetrics()
        metrics.reusedConnection = easy.info(CURLINFO_NUM_CONNECTS) == 0
        metrics.nameLookupMicroseconds = easy.info(int64: CURLINFO_NAMELOOKUP_TIME_T)
        // On a reused connection libcurl reports both as zero (nothing was connected): not asked.
        if !metrics.reusedConnection {
            metrics.connectMicroseconds = easy.info(int64: CURLINFO_CONNECT_TIME_T)
            metrics.tlsHandshakeMicroseconds = easy.info(int64: CURLINFO_APPCONNECT_TIME_T)
        }
        metrics.timeToFirstByteMicroseconds = easy.info(int64: CURLINFO_STARTTRANSFER_TIME_T)
        metrics.totalMicroseconds = easy.info(int64: CURLINFO_TOTAL_TIME_T)
        // `redirect` stays zero: libcurl follows no redirects (the redirect interceptor does).
        if sent < inlineBodyLength { inlineBodySent() }
        metrics.bytesSent = sent
        metrics.bytesReceived = received
        metrics.httpVersion = parser.version
        if let ip = easy.info(cString: CURLINFO_PRIMARY_IP), ip.pointee != 0 {
            metrics.remoteAddress = addresses.address(ip: ip, port: easy.info(CURLINFO_PRIMARY_PORT))
        }
        if let tlsSession {
            metrics.tlsVersion = tlsSession.version.map { String(cString: $0) }
            metrics.tlsCipher = tlsSession.cipher.map { String(cString: $0) }
            metrics.alpnProtocol = tlsSession.alpn
        }
        return metrics
    }

    /// Whether the total timeout had expired when libcurl ended the transfer with
    /// CURLE_OPERATION_TIMEDOUT, which it reports for both of its timers: the connect timeout, which
    /// runs only while a new connection is made (resolving, connecting, the TLS handshake), and the
    /// total timeout, from the start of the transfer. Whether a connection existed tells them apart
    /// only in part: libcurl reports no connect time for a reused connection, a total timeout can
    /// fire while connecting, and libcurl may connect again after a reused connection died. The
    /// times cannot mislead: libcurl fires the total timeout only once its time since the transfer
    /// began reaches it, and this transfer's time, begun before libcurl's and read after libcurl
    /// gave up, is at least that. When it is shorter, the connect timeout fired.
    var totalTimeoutExpired: Bool {
        guard let total = request.options.timeout else { return false }
        // libcurl counts whole milliseconds (at least 1), and its difference of two times may be
        // up to 1 ms more than what passed: a total timeout it fired may read a little short here.
        let limit = max(1, total.wholeMilliseconds) - 2
        return (Self.monotonicNanoseconds() - startNanoseconds) / 1_000_000 >= limit
    }

    /// A non-negative interval in nanoseconds, at most `Int64.max` (a `Duration`'s components are
    /// a 128-bit division: ~190 instructions, which the default progress interval is spared, see
    /// `RequestOptions`).
    static func nanoseconds(_ interval: Duration) -> Int64 {
        max(0, interval.wholeNanoseconds)
    }

    /// Nanoseconds of CLOCK_MONOTONIC, the clock libcurl measures its timeouts with.
    static func monotonicNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    func closeOutput() {
        if outputDescriptor >= 0 {
            close(outputDescriptor)
            outputDescriptor = -1
        }
    }
}
