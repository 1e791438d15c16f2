internal import CCurl
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

// The idle timeout: the loop's check, every round, of which transfers have stalled.
extension CurlLoop {
    /// Fails the transfers that moved no bytes for longer than their `idleTimeout`, at most every
    /// `idleCheckInterval`.
    func checkIdleTimeouts() {
        // Every round of the loop comes here, one or more per request: the coarse clock (a read of
        // the vDSO's page, no system call, a few milliseconds' resolution) tells whether a check
        // can be due. Reading `ContinuousClock` each time cost some 250 instructions per request,
        // in code of the concurrency library that was otherwise not in the loop's path.
        let coarse = Self.coarseMilliseconds()
        guard coarse >= nextIdleCheck, !transfers.isEmpty else { return }
        let now = ContinuousClock.now
        let elapsed = now - lastIdleCheck
        guard elapsed >= Self.idleCheckInterval else {
            // Not due by the exact clock: the rest of the interval is waited out on the coarse one
            // (a check then comes at most one of its steps late).
            nextIdleCheck = coarse + (Self.idleCheckInterval - elapsed).wholeMilliseconds + 1
            return
        }
        lastIdleCheck = now
        nextIdleCheck = coarse + Self.coarseCheckInterval
        // A transfer whose callbacks moved bytes since the previous check (or that began since
        // then) was active at some point in the last interval: counted as active now, so the
        // timeout fires a few intervals late at most (never early), and neither the callbacks nor a
        // new transfer read the clock. One whose callbacks were silent may still have moved bytes
        // that reach no callback (a header line that is not complete yet, a TLS record, compressed
        // bytes that decode to nothing yet): its connection's counters tell (`connectionMoved`).
        var connectionUse: [Int: Int]? = nil
        let stalled = transfers.values.filter { context in
            if context.activity != context.activitySeen {
                context.activitySeen = context.activity
                context.lastActivity = now
                return false
            }
            if context.isPaused { return false }
            // Not sent yet, a transfer waits for a connection (libcurl holds it back while the
            // connection limits are reached: "further transfers wait their turn") or is making one,
            // which `connectTimeout` limits. Neither is idleness. (libcurl's prerequest callback,
            // which counts the attempts, runs once a connection is ready, a Unix socket's too.)
            if !context.wasSent {
                context.lastActivity = now
                return false
            }
            if connectionMoved(context, use: &connectionUse) {
                context.lastActivity = now
                return false
            }
            return now - context.lastActivity > context.request.options.idleTimeout
        }
        for context in stalled {
            context.abortReason = .idleTimeout
            fail(
                context,
                SluiceError(
                    transferResult: CURLE_ABORTED_BY_CALLBACK, message: "", abort: .idleTimeout,
                    totalTimeoutExpired: false, url: context.urlText))
        }
    }

    /// Whether bytes moved on the connection of a transfer whose callbacks were silent, since the
    /// previous look (see `SocketTable`): one `getsockopt` for a silent transfer at an idle check,
    /// nothing for the others. Not before the transfer has a connection, nor on a connection that
    /// carries other transfers too (HTTP/2), whose bytes would keep a stalled one alive. `use`
    /// counts the transfers on each connection, made at the first look of a check.
    private func connectionMoved(_ context: TransferContext, use: inout [Int: Int]?) -> Bool {
        let key = Self.connectionKey(context.easy)
        guard key > 0 else { return false }
        if use == nil {
            var counts: [Int: Int] = [:]
            for other in transfers.values {
                let otherKey = Self.connectionKey(other.easy)
                if otherKey > 0 { counts[otherKey, default: 0] += 1 }
            }
            use = counts
        }
        guard use?[key] == 1,
            let bytes = multi.sockets.bytesMoved(localPort: key >> 16, remotePort: key & 0xFFFF),
            bytes != context.connectionBytesSeen
        else { return false }
        context.connectionBytesSeen = bytes
        return true
    }

    /// The local and remote ports of a transfer's connection in one number, 0 while it has none
    /// (libcurl sets them once connected, or when it reuses a connection).
    private static func connectionKey(_ easy: EasyHandle) -> Int {
        let local = easy.info(CURLINFO_LOCAL_PORT)
        guard local > 0 else { return 0 }
        return local << 16 | (easy.info(CURLINFO_PRIMARY_PORT) & 0xFFFF)
    }

    /// Milliseconds of the system's coarse monotonic clock.
    private static func coarseMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
