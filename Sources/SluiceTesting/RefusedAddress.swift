import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An address on 127.0.0.1 where every connection is refused, for testing how code copes with a
/// server that is not there.
///
/// The port is bound without listening for as long as the address is in use, so a connection is
/// refused at once and no other server can take the port meanwhile: the URL of a server that was
/// shut down may become another test's server's a moment later.
///
///     try await RefusedAddress.withBaseURL { base in
///         await #expect(throws: SluiceError.self) { try await client.get(base.absoluteString).value }
///     }
public enum RefusedAddress {
    /// Runs `body` with `http://127.0.0.1:<port>/`, a base URL where every connection is refused
    /// until `body` returns. Throws `POSIXError` when no port can be bound.
    @discardableResult
    public static func withBaseURL<T>(_ body: (URL) async throws -> T) async throws -> T {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 ? getsockname(descriptor, $0, &length) : -1
            }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        let port = Int(UInt16(bigEndian: address.sin_port))
        return try await body(URL(string: "http://127.0.0.1:\(port)/")!)
    }
}
