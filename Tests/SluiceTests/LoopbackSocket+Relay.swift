import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The byte-level pieces the tests' proxies share.
extension LoopbackSocket {
    /// Reads a request head up to its empty line, a byte at a time so that nothing after it is
    /// consumed; nil if the connection ends first. The head's text has no final CRLF CRLF.
    static func readHead(_ descriptor: Int32) -> String? {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) {
            guard recv(descriptor, &byte, 1, 0) == 1, head.count < 64 * 1024 else { return nil }
            head.append(byte)
        }
        return String(decoding: head.dropLast(4), as: UTF8.self)
    }

    /// Reads exactly `count` bytes; nil if the connection ends first.
    static func read(_ descriptor: Int32, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let received = bytes[offset...].withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if received <= 0 { return nil }
            offset += received
        }
        return bytes
    }

    /// Sends all of `bytes`; false if the connection failed.
    @discardableResult
    static func sendAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// Sends all of `text` in UTF-8; false if the connection failed.
    @discardableResult
    static func sendAll(_ descriptor: Int32, _ text: String) -> Bool { sendAll(descriptor, Array(text.utf8)) }

    /// Copies bytes both ways until either side closes or fails.
    static func relay(_ a: Int32, _ b: Int32) {
        var descriptors = [
            pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while poll(&descriptors, 2, 10_000) > 0 {
            for index in 0..<2 where descriptors[index].revents != 0 {
                let count = recv(descriptors[index].fd, &buffer, buffer.count, 0)
                if count <= 0 { return }
                if !sendAll(descriptors[1 - index].fd, Array(buffer[0..<count])) { return }
            }
        }
    }
}
