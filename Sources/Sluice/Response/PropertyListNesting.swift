import FoundationEssentials

/// How deeply the elements of an XML property list nest, found before `PropertyListDecoder` reads it.
///
/// The decoder parses an XML property list recursively and has no depth limit of its own, so a
/// body of some ten thousand nested `<array>`s (150 KB) overflows the thread's stack and crashes
/// the process before a single value is decoded. This scan bounds the depth first, in one pass and
/// no memory.
///
/// It is deliberately coarse, and errs only towards counting too deep: every start tag that is not
/// self-closing opens an element and every end tag closes one, whatever its name; comments, CDATA
/// sections and processing instructions are skipped to their terminators; a tag ends at its first
/// `>`, quoted or not. Nothing the decoder could read as nesting is skipped, so it cannot nest
/// deeper than the scan says.
enum PropertyListNesting {
    /// Whether the XML property list in `data` nests elements more than `limit` deep. A binary
    /// property list is read lazily by the decoder and is never deep here (`PropertyListObject`
    /// bounds its own recursion); UTF-16 and UTF-32 documents are scanned as UTF-8 copies.
    static func exceeds(_ limit: Int, in data: Data) -> Bool {
        if data.starts(with: "bplist".utf8) { return false }
        if let utf8 = utf8Copy(ofWideText: data) {
            return utf8.withUnsafeBufferPointer { exceeds(limit, in: $0) }
        }
        return data.withUnsafeBytes { exceeds(limit, in: $0.bindMemory(to: UInt8.self)) }
    }

    /// Whether `bytes` (ASCII-compatible) nest elements more than `limit` deep.
    static func exceeds(_ limit: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var depth = 0
        var index = 0
        /// The index just past the first `terminator` at or after `start`, or the end.
        func skip(past terminator: StaticString, from start: Int) -> Int {
            terminator.withUTF8Buffer { terminator in
                var position = start
                while position + terminator.count <= bytes.count {
                    if bytes[position] == terminator[0],
                        (1..<terminator.count).allSatisfy({ bytes[position + $0] == terminator[$0] })
                    {
                        return position + terminator.count
                    }
                    position += 1
                }
                return bytes.count
            }
        }
        func has(_ literal: StaticString, at start: Int) -> Bool {
            literal.withUTF8Buffer { literal in
                start + literal.count <= bytes.count
                    && (0..<literal.count).allSatisfy { bytes[start + $0] == literal[$0] }
            }
        }
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            if has("<!--", at: index) {
                index = skip(past: "-->", from: index + 4)
            } else if has("<![CDATA[", at: index) {
                index = skip(past: "]]>", from: index + 9)
            } else if has("<?", at: index) {
                index = skip(past: "?>", from: index + 2)
            } else if has("<!", at: index) {
                index = skip(past: ">", from: index + 2)
            } else if has("</", at: index) {
                depth = max(0, depth - 1)
                index = skip(past: ">", from: index + 2)
            } else {
                let end = skip(past: ">", from: index + 1)
                let isSelfClosing =
                    end - 2 > index && bytes[end - 1] == UInt8(ascii: ">")
                    && bytes[end - 2] == UInt8(ascii: "/")
                if !isSelfClosing {
                    depth += 1
                    if depth > limit { return true }
                }
                index = end
            }
        }
        return false
    }

    /// A UTF-8 copy of a UTF-16 or UTF-32 document (told by its byte order mark, or by the NULs
    /// around its first `<`), or nil for one that is already ASCII-compatible.
    private static func utf8Copy(ofWideText data: Data) -> [UInt8]? {
        let head = Array(data.prefix(4)) + [UInt8](repeating: 0xAA, count: max(0, 4 - data.count))
        let text: String
        switch (head[0], head[1], head[2], head[3]) {
        case (0x00, 0x00, 0xFE, 0xFF), (0x00, 0x00, 0x00, 0x3C):
            text = decode(data, unit: 4, bigEndian: true)
        case (0xFF, 0xFE, 0x00, 0x00), (0x3C, 0x00, 0x00, 0x00):
            text = decode(data, unit: 4, bigEndian: false)
        case (0xFE, 0xFF, _, _), (0x00, 0x3C, _, _):
            text = decode(data, unit: 2, bigEndian: true)
        case (0xFF, 0xFE, _, _), (0x3C, 0x00, _, _):
            text = decode(data, unit: 2, bigEndian: false)
        default:
            return nil
        }
        return Array(text.utf8)
    }

    /// `data` decoded as UTF-16 (`unit` 2) or UTF-32 (`unit` 4); invalid units become U+FFFD.
    private static func decode(_ data: Data, unit: Int, bigEndian: Bool) -> String {
        let bytes = Array(data)
        let count = bytes.count / unit
        func value(_ index: Int) -> UInt32 {
            var result: UInt32 = 0
            for offset in 0..<unit {
                let byte = UInt32(bytes[index * unit + (bigEndian ? offset : unit - 1 - offset)])
                result = result << 8 | byte
            }
            return result
        }
        if unit == 2 {
            return String(decoding: (0..<count).map { UInt16(value($0)) }, as: UTF16.self)
        }
        return String(decoding: (0..<count).map { value($0) }, as: UTF32.self)
    }
}
