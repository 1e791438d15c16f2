import Sluice

/// Byte-level reading: bounds-checked access, UTF-8 decoding and XML's character classes, names,
/// and turning an offset into a line and column for errors.
extension XMLDocumentParser {
    /// The byte at `index`, or 0 past the end.
    ///
    /// 0 works as the end marker because NUL is never allowed in XML: a real one fails
    /// `characterLength(at:)` wherever content is read, and matches no markup.
    func byte(at index: Int) -> UInt8 {
        index < bytes.count ? bytes[index] : 0
    }

    /// Whether the input continues with `literal` (its UTF-8 bytes) at the current position.
    func matches(_ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { literal in
            guard bytes.count - position >= literal.count else { return false }
            for index in 0..<literal.count where bytes[position + index] != literal[index] {
                return false
            }
            return true
        }
    }

    /// Skips XML whitespace; whether there was any, since the grammar requires it in places.
    @discardableResult
    mutating func skipWhitespace() -> Bool {
        let start = position
        while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
        return position > start
    }

    /// Reads an XML name (`Name`: a colon is just a name character, so `atom:link` is one name)
    /// and returns where it is, or nil, reading nothing, when no name starts here.
    mutating func readName() -> Range<Int>? {
        let start = position
        while position < bytes.count, let (scalar, length) = decodeScalar(at: position),
            position == start ? Self.isNameStart(scalar) : Self.isNameCharacter(scalar)
        {
            position += length
        }
        return position > start ? start..<position : nil
    }

    /// The input in `range` as a `String`; callers pass only ranges already checked as UTF-8.
    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Appends the input in `range` to `buffer`, in one copy.
    func append(_ range: Range<Int>, to buffer: inout [UInt8]) {
        guard !range.isEmpty else { return }
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
    }

    /// The length in bytes of the character at `index` (which is in bounds), once it is known to be
    /// well-formed UTF-8 and a character XML allows (`Char`): the check every byte of content,
    /// comments, processing instructions and the DOCTYPE goes through.
    func characterLength(at index: Int) throws(XMLSyntaxError) -> Int {
        let byte = bytes[index]
        // The common case first: printable ASCII, tab, LF and CR.
        if (0x20..<0x80).contains(byte) || byte == 0x09 || byte == 0x0A || byte == 0x0D { return 1 }
        guard let (scalar, length) = decodeScalar(at: index) else {
            throw error("invalid UTF-8 (byte 0x\(Self.hex(UInt32(byte), digits: 2)))", at: index)
        }
        guard Self.isXMLCharacter(scalar) else {
            throw error("character U+\(Self.hex(scalar, digits: 4)) is not allowed in XML", at: index)
        }
        return length
    }

    /// The scalar value and length of the UTF-8 sequence at `index` (in bounds), or nil when it is
    /// truncated, overlong, a surrogate or past U+10FFFF: the input is checked, never trusted.
    func decodeScalar(at index: Int) -> (UInt32, Int)? {
        let lead = bytes[index]
        let length: Int
        var value: UInt32
        switch lead {
        case 0x00..<0x80: return (UInt32(lead), 1)
        case 0xC2..<0xE0: (length, value) = (2, UInt32(lead & 0x1F))
        case 0xE0..<0xF0: (length, value) = (3, UInt32(lead & 0x0F))
        case 0xF0..<0xF5: (length, value) = (4, UInt32(lead & 0x07))
        default: return nil
        }
        guard bytes.count - index >= length else { return nil }
        for offset in 1..<length {
            let continuation = bytes[index + offset]
            guard continuation & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(continuation & 0x3F)
        }
        let smallest: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x1_0000
        guard value >= smallest, value <= 0x10_FFFF, !(0xD800...0xDFFF).contains(value) else { return nil }
        return (value, length)
    }

    /// Whether XML allows the character anywhere in a document (the `Char` production): no C0
    /// controls but tab, LF and CR, no surrogates, and neither U+FFFE nor U+FFFF.
    static func isXMLCharacter(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x1_0000...0x10_FFFF: true
        default: false
        }
    }

    /// Whether a name may start with the character (XML 1.0 fifth edition's `NameStartChar`).
    static func isNameStart(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x3A, 0x41...0x5A, 0x5F, 0x61...0x7A: true  // : A-Z _ a-z
        case 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF, 0x370...0x37D, 0x37F...0x1FFF, 0x200C...0x200D,
            0x2070...0x218F, 0x2C00...0x2FEF, 0x3001...0xD7FF, 0xF900...0xFDCF, 0xFDF0...0xFFFD,
            0x1_0000...0xE_FFFF:
            true
        default: false
        }
    }

    /// Whether a name may continue with the character (`NameChar`): a start character, or a
    /// digit, `-`, `.`, a middle dot or a combining mark.
    static func isNameCharacter(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x2D, 0x2E, 0x30...0x39, 0xB7, 0x300...0x36F, 0x203F...0x2040: true  // - . 0-9 ·
        default: isNameStart(scalar)
        }
    }

    /// Whether `byte` is XML whitespace (the `S` production): space, tab, LF or CR, nothing else.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// `value` in upper-case hexadecimal, padded to `digits`, for error messages.
    static func hex(_ value: UInt32, digits: Int) -> String {
        TextLocation.hex(value, digits: digits)
    }

    /// The 1-based line and column of `offset`, counted from the start of the document.
    func location(of offset: Int) -> (line: Int, column: Int) {
        TextLocation.of(offset, in: bytes, from: documentStart)
    }

    /// An error at `offset` (the current position unless told).
    func error(_ message: String, at offset: Int? = nil) -> XMLSyntaxError {
        let (line, column) = location(of: offset ?? position)
        return XMLSyntaxError(line: line, column: column, message: message)
    }
}
