import FoundationEssentials

/// A checksum a download must have before it is put in place: the file is digested once all of
/// it has arrived (a resumed download's earlier bytes too), and on a mismatch the download fails
/// with `.digestMismatch` and the file is deleted, never moved to its destination.
///
///     let task = try client.download(
///         "images/disk.iso", to: destination,
///         expectedDigest: try ExpectedDigest(.sha256, hex: "9f86d081884c7d65…"))
public struct ExpectedDigest: Sendable, Hashable, Codable {
    /// A digest algorithm (computed by the OpenSSL that libcurl loaded).
    public enum Algorithm: String, Sendable, Hashable, Codable, CaseIterable {
        /// SHA-256: 32 bytes.
        case sha256 = "SHA256"
        /// SHA-384: 48 bytes.
        case sha384 = "SHA384"
        /// SHA-512: 64 bytes.
        case sha512 = "SHA512"
        /// SHA-1: 20 bytes; only for servers that publish nothing better.
        case sha1 = "SHA1"

        /// The length of a digest, in bytes.
        public var length: Int {
            switch self {
            case .sha256: return 32
            case .sha384: return 48
            case .sha512: return 64
            case .sha1: return 20
            }
        }
    }

    /// The algorithm.
    public let algorithm: Algorithm
    /// The digest's bytes.
    public let bytes: Data

    /// A digest of `bytes`; fails with `.invalidOption` when their count is not the algorithm's.
    public init(_ algorithm: Algorithm, bytes: Data) throws(SluiceError) {
        guard bytes.count == algorithm.length else {
            throw SluiceError(
                .invalidOption, "A \(algorithm.rawValue) digest has \(algorithm.length) bytes, not \(bytes.count).")
        }
        self.algorithm = algorithm
        self.bytes = bytes
    }

    /// A digest written in hexadecimal (either case, as `sha256sum` prints it); fails with
    /// `.invalidOption` when `hex` is not the algorithm's length in hexadecimal digits.
    public init(_ algorithm: Algorithm, hex: String) throws(SluiceError) {
        guard let bytes = Self.bytes(hex: hex) else {
            throw SluiceError(.invalidOption, "\(hex.debugDescription) is not a digest in hexadecimal.")
        }
        try self.init(algorithm, bytes: bytes)
    }

    /// The digest in lowercase hexadecimal.
    public var hex: String { Self.hex(bytes) }

    static func hex(_ bytes: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of an even number of hexadecimal digits, surrounding spaces ignored.
    static func bytes(hex: String) -> Data? {
        let digits = Array(hex.trimmingWhitespace().utf8)
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var bytes = Data(capacity: digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
