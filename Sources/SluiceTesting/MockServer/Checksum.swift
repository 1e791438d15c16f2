internal import CZlib
import Foundation

extension MockServer {
    /// A running CRC-32 over bytes fed in pieces, as `MockServer` computes for bodies it sends and receives.
    ///
    /// The value is eight lowercase hexadecimal digits, so `X-Checksum` headers and
    /// `RecordedRequest.bodyChecksum` compare as strings.
    public struct Checksum: Sendable, Equatable {
        /// The CRC-32 of everything fed so far.
        public private(set) var crc: UInt32 = 0

        /// Creates the checksum of no bytes.
        public init() {}

        /// Feeds more bytes.
        public mutating func update(_ data: Data) {
            data.withUnsafeBytes { update($0) }
        }

        /// Feeds more bytes from a raw buffer.
        public mutating func update(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            crc = UInt32(
                crc32_z(uLong(crc), base.assumingMemoryBound(to: Bytef.self), bytes.count))
        }

        /// The checksum as eight lowercase hexadecimal digits.
        public var value: String { Self.format(crc) }

        static func format(_ crc: UInt32) -> String {
            let digits = String(crc, radix: 16)
            return String(repeating: "0", count: 8 - digits.count) + digits
        }
    }

    /// The checksum (CRC-32, eight lowercase hex digits) of `data`, as routes report it in `X-Checksum`.
    public static func checksum(of data: Data) -> String {
        var checksum = Checksum()
        checksum.update(data)
        return checksum.value
    }
}
