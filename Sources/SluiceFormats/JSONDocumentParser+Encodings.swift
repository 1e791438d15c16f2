import Sluice

/// UTF-16 and UTF-32 documents, which RFC 4627 allowed and `JSONSerialization` read: told apart by
/// their byte order mark, or by where the zero bytes of the first two ASCII characters fall.
extension JSONDocumentParser {
    /// The wide encodings a JSON document may come in.
    enum WideEncoding {
        case utf16BigEndian, utf16LittleEndian, utf32BigEndian, utf32LittleEndian
    }

    /// A UTF-8 copy of `bytes` when they are UTF-16 or UTF-32 (without the byte order mark); nil
    /// when they are UTF-8 already; an error when they are not valid in the encoding they look like.
    static func utf8Copy(ofWideText bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> [UInt8]? {
        guard let (encoding, markLength) = wideEncoding(of: bytes) else { return nil }
        let body = UnsafeBufferPointer(rebasing: bytes[markLength...])
        var utf8: [UInt8] = []
        utf8.reserveCapacity(body.count)
        let failed: Bool
        switch encoding {
        case .utf16BigEndian, .utf16LittleEndian:
            guard body.count % 2 == 0 else { throw wideError("UTF-16 with an odd number of bytes") }
            failed = !UTF16Bytes.transcode(body, bigEndian: encoding == .utf16BigEndian, into: &utf8)
        case .utf32BigEndian, .utf32LittleEndian:
            guard body.count % 4 == 0 else { throw wideError("UTF-32 with a number of bytes not a multiple of 4") }
            let units = stride(from: 0, to: body.count, by: 4).lazy.map { index -> UInt32 in
                let word = (0..<4).map { UInt32(body[index + $0]) }
                return encoding == .utf32BigEndian
                    ? word[0] << 24 | word[1] << 16 | word[2] << 8 | word[3]
                    : word[3] << 24 | word[2] << 16 | word[1] << 8 | word[0]
            }
            failed = transcode(units.makeIterator(), from: UTF32.self, to: UTF8.self, stoppingOnError: true) {
                utf8.append($0)
            }
        }
        if failed { throw wideError("a document that looks like \(encoding) but is not valid in it") }
        return utf8
    }

    /// The wide encoding `bytes` are in and the length of their byte order mark, or nil for UTF-8.
    static func wideEncoding(of bytes: UnsafeBufferPointer<UInt8>) -> (WideEncoding, Int)? {
        let head = Array(bytes.prefix(4))
        func starts(_ prefix: [UInt8]) -> Bool { head.starts(with: prefix) }
        // The marks first, the UTF-32 ones before the UTF-16 ones they begin with.
        if starts([0x00, 0x00, 0xFE, 0xFF]) { return (.utf32BigEndian, 4) }
        if starts([0xFF, 0xFE, 0x00, 0x00]) { return (.utf32LittleEndian, 4) }
        if starts([0xFE, 0xFF]) { return (.utf16BigEndian, 2) }
        if starts([0xFF, 0xFE]) { return (.utf16LittleEndian, 2) }
        // Without a mark: the first character is ASCII, so its zero bytes give the encoding away.
        if head.count == 4 {
            if head[0] == 0 && head[1] == 0 && head[2] == 0 && head[3] != 0 { return (.utf32BigEndian, 0) }
            if head[0] != 0 && head[1] == 0 && head[2] == 0 && head[3] == 0 { return (.utf32LittleEndian, 0) }
        }
        if head.count >= 2 {
            if head[0] == 0 && head[1] != 0 { return (.utf16BigEndian, 0) }
            if head[0] != 0 && head[1] == 0 { return (.utf16LittleEndian, 0) }
        }
        return nil
    }

    /// An error about the encoding of the whole document, placed at its start.
    static func wideError(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(line: 1, column: 1, message: message)
    }
}
