/// FNV-1a, 64 bits: names the cache's files and checks their contents. Not a cryptographic hash:
/// the core library takes no dependency, FoundationEssentials has no digest on Linux, and neither
/// use needs one (a name that collides is caught by the key stored inside the entry).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
    }

    /// The hash of `text`'s UTF-8 bytes.
    static func hash(_ text: String) -> UInt64 {
        var hasher = FNV1a()
        hasher.add(text.utf8)
        return hasher.value
    }

    /// The hash of `bytes`.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hasher = FNV1a()
        hasher.add(bytes)
        return hasher.value
    }

    /// `value` as 16 lowercase hexadecimal digits.
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
