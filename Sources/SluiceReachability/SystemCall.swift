import FoundationEssentials
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// The one place every system call of the reachability monitor is checked.
///
/// A call that returns -1 is retried when a signal interrupted it (`EINTR`) and otherwise becomes
/// a `reachabilityUnavailable` error that names the call and carries the `errno` as a `POSIXError`.
enum SystemCall {
    /// Runs `call` until it is not interrupted; returns its result, or throws if it failed.
    @discardableResult
    static func check<Result: FixedWidthInteger>(
        _ what: @autoclosure () -> String, _ call: () -> Result
    ) throws(SluiceError) -> Result {
        while true {
            let result = call()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            throw SluiceError(
                .reachabilityUnavailable, "\(what()) failed: \(String(cString: strerror(code))) (errno \(code)).",
                underlyingError: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
        }
    }
}

extension SystemCall {
    /// Closes a descriptor, once: Linux releases it even when `close` reports `EINTR`, so a retry
    /// could close a descriptor another thread has just been given. A failure is not actionable.
    static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }
}

extension SluiceError {
    /// The `errno` of a failed system call, if this error is one.
    var systemErrno: Int32? {
        (underlyingError as? POSIXError).map { $0.code.rawValue }
    }
}
