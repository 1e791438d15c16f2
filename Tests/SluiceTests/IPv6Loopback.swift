import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whether this machine has the IPv6 loopback address: some containers run without IPv6, where
/// the tests that need a server on `::1` are skipped.
enum IPv6Loopback {
    static let isAvailable: Bool = {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return (try? LoopbackSocket.listen(on: address, backlog: 1)).map { close($0.descriptor) } != nil
    }()
}
