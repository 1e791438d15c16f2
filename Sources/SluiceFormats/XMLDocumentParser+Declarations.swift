import Sluice

/// The parts of a document that are not elements or text: the byte order mark, the XML
/// declaration and its encoding, comments, processing instructions, CDATA sections and the DOCTYPE.
extension XMLDocumentParser {
    /// The encodings read: UTF-8 (ASCII being a subset of it), and ISO-8859-1, which older feeds
    /// still declare and which decodes one byte to one character, with no tables.
    enum Encoding {
        /// UTF-8, or US-ASCII.
        case utf8
        /// ISO-8859-1 (Latin-1), transcoded to UTF-8 before parsing.
        case latin1
    }

    /// Skips a UTF-8 byte order mark and says whether there was one; a UTF-16 or UTF-32 one is an
    /// error, named as such rather than left to fail as a stray NUL.
    mutating func skipByteOrderMark() throws(XMLSyntaxError) -> Bool {
        if matches("\u{FEFF}") {
            position = 3
            documentStart = 3
            return true
        }
        if byte(at: 0) == 0xFE && byte(at: 1) == 0xFF || byte(at: 0) == 0xFF && byte(at: 1) == 0xFE {
            throw error("UTF-16 and UTF-32 documents are not supported (only UTF-8 and ISO-8859-1)")
        }
        return false
    }

    /// Reads the XML declaration (`<?xml version="1.0" encoding="UTF-8"?>`), which may only come
    /// first, and returns the encoding it names (UTF-8 when there is none); an encoding other than
    /// UTF-8, ASCII or ISO-8859-1 is an error, since reading it as UTF-8 would garble its text.
    mutating func readXMLDeclaration() throws(XMLSyntaxError) -> Encoding {
        guard matches("<?xml"), Self.isWhitespace(byte(at: position + 5)) else { return .utf8 }
        let start = position
        position += 5
        // The pseudo-attributes, in the only order XML allows; version is required.
        let names = ["version", "encoding", "standalone"]
        var next = 0
        var encoding = Encoding.utf8
        while true {
            let hasSpace = skipWhitespace()
            if matches("?>"), next > 0 {
                position += 2
                return encoding
            }
            if position == bytes.count { throw error("unterminated XML declaration", at: start) }
            guard hasSpace, let nameRange = readName() else {
                throw error(next == 0 ? "expected version in the XML declaration" : "expected '?>'")
            }
            let name = string(nameRange)
            guard let index = names.firstIndex(of: name), index >= next, next > 0 || index == 0 else {
                throw error(
                    "unexpected \(name) in the XML declaration (version, then encoding, then standalone)",
                    at: nameRange.lowerBound)
            }
            next = index + 1
            skipWhitespace()
            guard byte(at: position) == UInt8(ascii: "=") else { throw error("expected '=' after \(name)") }
            position += 1
            skipWhitespace()
            let valueStart = position + 1
            try skipQuotedLiteral(in: "the XML declaration")
            let value = bytes[valueStart..<position - 1]
            if name == "version" {
                // `VersionNum`: 1. and digits (a 1.1 document reads as 1.0, as XML 1.0 processors do).
                guard value.count > 2, value.starts(with: "1.".utf8),
                    value.dropFirst(2).allSatisfy({ (0x30...0x39).contains($0) })
                else {
                    throw error("malformed version \(string(valueStart..<position - 1)) (expected 1.0)", at: valueStart)
                }
                continue
            }
            if name == "standalone" {
                guard value.elementsEqual("yes".utf8) || value.elementsEqual("no".utf8) else {
                    throw error("standalone must be yes or no", at: valueStart)
                }
                continue
            }
            let label = string(valueStart..<position - 1)
            switch label.lowercased() {
            case "utf-8", "utf8", "us-ascii", "ascii":
                encoding = .utf8
            case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1":
                encoding = .latin1
            case let utf16 where isTranscodedFromUTF16 && ["utf-16", "utf-16be", "utf-16le"].contains(utf16):
                // Already transcoded to UTF-8, which is what the parser now reads.
                encoding = .utf8
            default:
                throw error("unsupported encoding \(label) (only UTF-8 and ISO-8859-1)", at: valueStart)
            }
        }
    }

    /// A UTF-8 copy of an ISO-8859-1 document: each byte is the code point of its character.
    static func transcodeLatin1(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(bytes.count + bytes.count / 8)
        for byte in bytes {
            if byte < 0x80 {
                utf8.append(byte)
            } else {
                utf8.append(0xC0 | byte >> 6)
                utf8.append(0x80 | byte & 0x3F)
            }
        }
        return utf8
    }

    /// Skips a comment at its `<!--`. XML forbids `--` inside one, so `--` must end it.
    mutating func skipComment() throws(XMLSyntaxError) {
        let start = position
        position += 4
        while position < bytes.count {
            if bytes[position] == UInt8(ascii: "-") && byte(at: position + 1) == UInt8(ascii: "-") {
                guard byte(at: position + 2) == UInt8(ascii: ">") else {
                    throw error("'--' is not allowed inside a comment")
                }
                position += 3
                return
            }
            position += try characterLength(at: position)
        }
        throw error("unterminated comment (no -->)", at: start)
    }

    /// Skips a processing instruction at its `<?`; its target must be a name, and not `xml`,
    /// which is reserved for the declaration at the very start.
    mutating func skipProcessingInstruction() throws(XMLSyntaxError) {
        let start = position
        position += 2
        guard let target = readName() else { throw error("expected a name after '<?'") }
        if string(target).lowercased() == "xml" {
            throw error("the XML declaration is allowed only at the very start of the document", at: start)
        }
        if !skipWhitespace(), !matches("?>") {
            throw error("expected whitespace or '?>' after the processing instruction's target")
        }
        while position < bytes.count {
            if matches("?>") {
                position += 2
                return
            }
            position += try characterLength(at: position)
        }
        throw error("unterminated processing instruction (no ?>)", at: start)
    }

    /// Reads a CDATA section at its `<![CDATA[` and appends its text as written, except for line
    /// ends, which XML normalizes everywhere: CR LF and a lone CR become LF (unless the text is
    /// kept as written).
    mutating func readCDATA(into text: inout [UInt8]) throws(XMLSyntaxError) {
        let start = position
        position += 9
        var runStart = position
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "]") where matches("]]>"):
                append(runStart..<position, to: &text)
                position += 3
                return
            case 0x0D where !options.keepsTextAsWritten:
                append(runStart..<position, to: &text)
                text.append(0x0A)
                position += byte(at: position + 1) == 0x0A ? 2 : 1
                runStart = position
            default:
                position += try characterLength(at: position)
            }
        }
        throw error("unterminated CDATA section (no ]]>)", at: start)
    }

    /// Skips a DOCTYPE declaration at its `<!DOCTYPE`: the root name, an optional SYSTEM or PUBLIC
    /// identifier (never fetched) and an optional internal subset (never applied).
    mutating func skipDoctype() throws(XMLSyntaxError) {
        let start = position
        position += 9
        guard skipWhitespace(), readName() != nil else {
            throw error("expected whitespace and the root element's name after <!DOCTYPE")
        }
        if skipWhitespace(), matches("SYSTEM") || matches("PUBLIC") {
            let literals = matches("PUBLIC") ? 2 : 1
            position += 6
            for _ in 0..<literals {
                guard skipWhitespace() else { throw error("expected whitespace before a quoted identifier") }
                try skipQuotedLiteral(in: "the DOCTYPE")
            }
            skipWhitespace()
        }
        if byte(at: position) == UInt8(ascii: "[") {
            position += 1
            try skipInternalSubset(ofDoctypeAt: start)
            skipWhitespace()
        }
        guard byte(at: position) == UInt8(ascii: ">") else {
            if position == bytes.count { throw error("unterminated DOCTYPE declaration", at: start) }
            throw error("expected '>' to end the DOCTYPE declaration")
        }
        position += 1
    }

    /// Skips the internal subset after its `[`, through its `]`. Declarations are skipped up to
    /// their `>` (quoted literals may hold one) without checking their grammar, since none of them
    /// is used; only the names of general entities are kept, for a clearer error if one is used.
    mutating func skipInternalSubset(ofDoctypeAt doctype: Int) throws(XMLSyntaxError) {
        while true {
            skipWhitespace()
            if position == bytes.count { throw error("unterminated DOCTYPE declaration", at: doctype) }
            if bytes[position] == UInt8(ascii: "]") {
                position += 1
                return
            }
            if bytes[position] == UInt8(ascii: "%") {
                // A parameter-entity reference, which would pull in declarations: never expanded.
                position += 1
                guard readName() != nil, byte(at: position) == UInt8(ascii: ";") else {
                    throw error("malformed parameter-entity reference")
                }
                position += 1
            } else if matches("<!--") {
                try skipComment()
            } else if matches("<?") {
                try skipProcessingInstruction()
            } else if matches("<!") {
                try skipMarkupDeclaration()
            } else {
                throw error("expected a declaration, a comment or ']' in the DOCTYPE's internal subset")
            }
        }
    }

    /// Skips one `<!ELEMENT`, `<!ATTLIST`, `<!ENTITY` or `<!NOTATION` declaration, remembering the
    /// name a general entity declares.
    mutating func skipMarkupDeclaration() throws(XMLSyntaxError) {
        let start = position
        position += 2
        let keyword = readName().map { string($0) } ?? ""
        guard ["ELEMENT", "ATTLIST", "ENTITY", "NOTATION"].contains(keyword) else {
            throw error("expected ELEMENT, ATTLIST, ENTITY or NOTATION after '<!'", at: start + 2)
        }
        if keyword == "ENTITY" {
            guard skipWhitespace() else { throw error("expected whitespace after <!ENTITY") }
            // `<!ENTITY % name …>` declares a parameter entity, which `&` cannot reference.
            if byte(at: position) != UInt8(ascii: "%"), let name = readName() {
                declaredEntities.insert(string(name))
            }
        }
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: ">"):
                position += 1
                return
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                try skipQuotedLiteral(in: "the DOCTYPE")
            default:
                position += try characterLength(at: position)
            }
        }
        throw error("unterminated <!\(keyword) declaration", at: start)
    }

    /// Skips a literal in single or double quotes, checking its characters; `construct` names where
    /// it is, for errors.
    mutating func skipQuotedLiteral(in construct: String) throws(XMLSyntaxError) {
        let quote = byte(at: position)
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw error("expected a quoted value in \(construct)")
        }
        let start = position
        position += 1
        while position < bytes.count {
            if bytes[position] == quote {
                position += 1
                return
            }
            position += try characterLength(at: position)
        }
        throw error("unterminated quoted value in \(construct)", at: start)
    }
}
