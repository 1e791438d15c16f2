internal import CCurl
internal import CNetlink

#if canImport(Glibc)
    import Glibc
#endif

/// The sockets libcurl holds open for one multi handle's connections, so that the idle check can
/// tell whether bytes move on a transfer's connection when libcurl calls none of its callbacks (see
/// `CurlLoop.checkIdleTimeouts`): libcurl calls the header callback only for a complete line, and
/// the write callback only for decoded body bytes, while a partial line, a TLS record or a gzip
/// block that decodes to nothing yet are bytes that moved all the same.
///
/// libcurl reports each socket it opens and lets this table close each one (CURLOPT_SOCKOPTFUNCTION,
/// CURLOPT_CLOSESOCKETFUNCTION, set on every easy handle with the table as their data). A
/// connection keeps the pointer of the handle that opened it and may outlive that handle, so the
/// table lives as long as the multi handle, which closes the last connections as it is cleaned up.
/// Loop thread only (libcurl calls back on it), never accessed overlapping.
final class SocketTable {
    private struct Entry {
        let descriptor: Int32
        /// The socket's local and remote ports once it is connected (0 until then).
        var localPort = 0
        var remotePort = 0
    }

    @exclusivity(unchecked) private var entries: [Entry] = []

    /// The pointer libcurl hands the callbacks (unretained: the multi handle keeps the table).
    var userData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ pointer: UnsafeMutableRawPointer) -> SocketTable {
        Unmanaged<SocketTable>.fromOpaque(pointer).takeUnretainedValue()
    }

    fileprivate func opened(_ descriptor: Int32) {
        // An entry left with the same number is a socket closed without the table (none is known
        // to be): its ports are another connection's.
        closing(descriptor)
        entries.append(Entry(descriptor: descriptor))
    }

    fileprivate func closing(_ descriptor: Int32) {
        guard let index = entries.firstIndex(where: { $0.descriptor == descriptor }) else { return }
        entries.swapAt(index, entries.count - 1)
        entries.removeLast()
    }

    /// How many bytes have moved on the connected socket with these ports (see
    /// `sluice_tcp_bytes_moved`), or nil if no socket of this table has them. A socket's ports are
    /// read once, the first time it is looked for after it connected.
    func bytesMoved(localPort: Int, remotePort: Int) -> UInt64? {
        guard localPort > 0 else { return nil }
        for index in entries.indices {
            if entries[index].localPort == 0 { readPorts(of: index) }
            let entry = entries[index]
            guard entry.localPort == localPort, entry.remotePort == remotePort else { continue }
            var bytes: UInt64 = 0
            return sluice_tcp_bytes_moved(entry.descriptor, &bytes) == 0 ? bytes : nil
        }
        return nil
    }

    private func readPorts(of index: Int) {
        let descriptor = entries[index].descriptor
        // A socket that is still connecting has no peer yet: asked again next time.
        guard let remote = Self.port(descriptor, getpeername), let local = Self.port(descriptor, getsockname) else {
            return
        }
        entries[index].localPort = local
        entries[index].remotePort = remote
    }

    private static func port(
        _ descriptor: Int32,
        _ read: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
    ) -> Int? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { read(descriptor, $0, &length) }
        }
        guard result == 0 else { return nil }
        return withUnsafePointer(to: &address) { pointer -> Int? in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET:
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin_port))
                }
            case AF_INET6:
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            default: nil
            }
        }
    }
}

// libcurl's socket callbacks, whose data pointer is the multi handle's table.

let socketOpenedCallback: curl_sockopt_callback = { table, descriptor, _ in
    SocketTable.from(table!).opened(descriptor)
    return SLUICE_SOCKOPT_OK
}

let closeSocketCallback: curl_closesocket_callback = { table, descriptor in
    SocketTable.from(table!).closing(descriptor)
    return close(descriptor)
}
