internal import CCurl
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The remote address of the latest finished transfer, as `TransferMetrics.remoteAddress` shows it.
///
/// Transfers on a kept-alive connection finish with the same peer one after another; comparing
/// libcurl's C string with the previous one costs less than making the text again (a string from
/// the C string, the port's digits, an interpolation) for every request. Loop thread only.
struct RemoteAddressCache {
    private var ip = ""
    private var port = -1
    private var formatted = ""

    /// `ip` and `port` as `host:port`, with an IPv6 address in brackets.
    mutating func address(ip pointer: UnsafePointer<CChar>, port: Int) -> String {
        if port == self.port && ip.withCString({ strcmp($0, pointer) == 0 }) { return formatted }
        let ip = String(cString: pointer)
        // A byte search: `String.contains(_:)` goes through Foundation's string search here.
        formatted = ip.utf8.contains(UInt8(ascii: ":")) ? "[\(ip)]:\(port)" : "\(ip):\(port)"
        self.ip = ip
        self.port = port
        return formatted
    }
}
