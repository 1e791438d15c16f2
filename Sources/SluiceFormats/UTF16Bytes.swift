import Sluice

/// UTF-16 text held as bytes, read as UTF-8: shared by Sluice's parsers that meet it (JSON and XML
/// property-list documents in UTF-16, a binary property list's strings), which then read the UTF-8.
enum UTF16Bytes {
    /// Appends to `utf8` the text of the UTF-16 code units in `bytes`, two bytes each, big-endian
    /// or little-endian; a last odd byte is left for the caller to refuse. Returns false at an
    /// unpaired surrogate, with the text before it appended, so that an error can say where.
    static func transcode(
        _ bytes: UnsafeBufferPointer<UInt8>, bigEndian: Bool, into utf8: inout [UInt8]
    ) -> Bool {
        let units = stride(from: 0, to: bytes.count - 1, by: 2).lazy.map { index -> UInt16 in
            let (high, low) = bigEndian ? (bytes[index], bytes[index + 1]) : (bytes[index + 1], bytes[index])
            return UInt16(high) << 8 | UInt16(low)
        }
        utf8.reserveCapacity(utf8.count + bytes.count / 2)
        let failed = Swift.transcode(units.makeIterator(), from: UTF16.self, to: UTF8.self, stoppingOnError: true) {
            utf8.append($0)
        }
        return !failed
    }
}
