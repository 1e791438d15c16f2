import Sluice

/// UTF-16 documents, read only where `Options.acceptsLooseStart` allows them: property lists.
extension XMLDocumentParser {
    /// A UTF-8 copy of `buffer` when it starts with a UTF-16 byte order mark (big- or little-endian,
    /// the mark left out), or nil when it does not; an odd length or an unpaired surrogate is an
    /// error where it occurs.
    ///
    /// The parser then reads the copy, so lines and columns count its characters, which are the
    /// document's. A UTF-32 little-endian mark (`FF FE 00 00`) is not taken for UTF-16: it is left
    /// to fail as the unsupported encoding it is.
    static func transcodeUTF16(_ buffer: UnsafeBufferPointer<UInt8>) throws(XMLSyntaxError) -> [UInt8]? {
        guard buffer.count >= 2 else { return nil }
        let isBigEndian: Bool
        switch (buffer[0], buffer[1]) {
        case (0xFE, 0xFF): isBigEndian = true
        case (0xFF, 0xFE) where buffer.count < 4 || buffer[2] != 0 || buffer[3] != 0: isBigEndian = false
        default: return nil
        }
        var utf8: [UInt8] = []
        guard UTF16Bytes.transcode(UnsafeBufferPointer(rebasing: buffer[2...]), bigEndian: isBigEndian, into: &utf8)
        else {
            throw unreadableUTF16("invalid UTF-16 (an unpaired surrogate)", after: utf8)
        }
        if buffer.count % 2 != 0 {
            throw unreadableUTF16("a UTF-16 document cannot have an odd number of bytes", after: utf8)
        }
        return utf8
    }

    /// An error at the end of `utf8`, the part of a UTF-16 document read before it went wrong.
    private static func unreadableUTF16(_ message: String, after utf8: [UInt8]) -> XMLSyntaxError {
        utf8.withUnsafeBufferPointer { XMLDocumentParser(bytes: $0).error(message, at: $0.count) }
    }
}
