import Sluice

/// The element content: start and end tags, attribute values, text and references.
extension XMLDocumentParser {
    /// Reads a start tag at its `<`: the element (not yet on the stack) and whether it was
    /// self-closing (`<a/>`), in which case it is already complete.
    mutating func readStartTag() throws(XMLSyntaxError) -> (OpenElement, isEmpty: Bool) {
        let start = position
        position += 1
        guard let nameRange = readName() else {
            throw error("'<' must start a tag (write &lt; for a literal '<')", at: start)
        }
        let name = string(nameRange)
        var attributes: [String: String] = [:]
        while true {
            let hasSpace = skipWhitespace()
            switch byte(at: position) {
            case UInt8(ascii: ">"):
                position += 1
                let value = XMLValue(name: name, attributes: attributes)
                return (OpenElement(nameRange: nameRange, start: start, value: value), false)
            case UInt8(ascii: "/"):
                guard byte(at: position + 1) == UInt8(ascii: ">") else { throw error("expected '>' after '/'") }
                position += 2
                let value = XMLValue(name: name, attributes: attributes)
                return (OpenElement(nameRange: nameRange, start: start, value: value), true)
            default:
                if position == bytes.count { throw error("end of input inside the start tag <\(name)>") }
                // XML wants whitespace between attributes: `<a x="1"y="2">` is not well-formed.
                guard hasSpace, let attributeRange = readName() else {
                    throw error("expected an attribute name, '>' or '/>' in the start tag <\(name)>")
                }
                let attribute = string(attributeRange)
                skipWhitespace()
                guard byte(at: position) == UInt8(ascii: "=") else {
                    throw error("expected '=' after the attribute name \(attribute)")
                }
                position += 1
                skipWhitespace()
                let value = try readAttributeValue(of: attribute)
                guard attributes.updateValue(value, forKey: attribute) == nil else {
                    throw error("duplicate attribute \(attribute) in <\(name)>", at: attributeRange.lowerBound)
                }
            }
        }
    }

    /// Reads a quoted attribute value: references resolved, and each literal tab, LF or CR (a
    /// CR LF pair counting once) turned into a space, as XML's attribute-value normalization
    /// requires; a character reference such as `&#10;` keeps its character.
    mutating func readAttributeValue(of attribute: String) throws(XMLSyntaxError) -> String {
        let quote = byte(at: position)
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw error("expected a quoted value for the attribute \(attribute)")
        }
        let opening = position
        position += 1
        var value: [UInt8] = []
        var runStart = position
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case quote:
                let end = position
                position += 1
                // Most values have nothing to resolve: one `String` straight from the input.
                if runStart == opening + 1 { return string(runStart..<end) }
                append(runStart..<end, to: &value)
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "<"):
                throw error("'<' is not allowed in an attribute value (write &lt;)")
            case UInt8(ascii: "&"):
                append(runStart..<position, to: &value)
                try readReference(into: &value)
                runStart = position
            case 0x09, 0x0A, 0x0D:
                append(runStart..<position, to: &value)
                value.append(0x20)
                position += byte == 0x0D && self.byte(at: position + 1) == 0x0A ? 2 : 1
                runStart = position
            default:
                position += try characterLength(at: position)
            }
        }
        throw error("unterminated value of the attribute \(attribute)", at: opening)
    }

    /// Reads an end tag at its `<` and checks that it closes `element`.
    mutating func readEndTag(closing element: OpenElement) throws(XMLSyntaxError) {
        let start = position
        position += 2
        guard let nameRange = readName() else { throw error("expected a name after '</'") }
        guard bytes[nameRange].elementsEqual(bytes[element.nameRange]) else {
            throw error("mismatched end tag </\(string(nameRange))>, expected </\(element.value.name)>", at: start)
        }
        skipWhitespace()
        guard byte(at: position) == UInt8(ascii: ">") else {
            if position == bytes.count { throw error("end of input inside the end tag </\(element.value.name)>") }
            throw error("expected '>' to close the end tag </\(element.value.name)>")
        }
        position += 1
    }

    /// Reads character data up to the next `<` (or the end of input) into `text`: references
    /// resolved, and CR LF or a lone CR read as LF, as XML's end-of-line handling requires (unless
    /// the text is kept as written).
    mutating func readText(into text: inout [UInt8]) throws(XMLSyntaxError) {
        var runStart = position
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "<"):
                append(runStart..<position, to: &text)
                return
            case UInt8(ascii: "&"):
                append(runStart..<position, to: &text)
                try readReference(into: &text)
                runStart = position
            case 0x0D where !options.keepsTextAsWritten:
                append(runStart..<position, to: &text)
                text.append(0x0A)
                position += byte(at: position + 1) == 0x0A ? 2 : 1
                runStart = position
            case UInt8(ascii: "]") where matches("]]>"):
                // Reserved as the end of a CDATA section, so XML forbids it in text.
                throw error("']]>' is not allowed in text")
            default:
                position += try characterLength(at: position)
            }
        }
        append(runStart..<position, to: &text)
    }

    /// Reads a reference at its `&` and appends its character as UTF-8: one of the five predefined
    /// entities or a decimal or hexadecimal character reference. Any other entity is an error,
    /// declared in the DOCTYPE or not: nothing a document declares is ever expanded.
    mutating func readReference(into text: inout [UInt8]) throws(XMLSyntaxError) {
        let start = position
        position += 1
        if byte(at: position) == UInt8(ascii: "#") {
            position += 1
            let isHexadecimal = byte(at: position) == UInt8(ascii: "x")
            if isHexadecimal { position += 1 }
            var value: UInt32 = 0
            var digits = 0
            while let digit = Self.digitValue(byte(at: position), hexadecimal: isHexadecimal) {
                // Saturates just past the last code point, so a long run of digits cannot overflow.
                value = min(value * (isHexadecimal ? 16 : 10) + digit, 0x11_0000)
                digits += 1
                position += 1
            }
            guard digits > 0, byte(at: position) == UInt8(ascii: ";") else {
                throw error("malformed character reference (expected &#digits; or &#xhex;)", at: start)
            }
            position += 1
            guard Self.isXMLCharacter(value), let scalar = Unicode.Scalar(value) else {
                throw error(
                    "character reference \(string(start..<position)) names a character XML does not allow", at: start)
            }
            text.append(contentsOf: scalar.utf8)
            return
        }
        guard let nameRange = readName() else {
            throw error("'&' must start a reference such as &amp; (write &amp; for a literal '&')", at: start)
        }
        guard byte(at: position) == UInt8(ascii: ";") else {
            throw error("expected ';' to end the reference &\(string(nameRange))")
        }
        position += 1
        let name = string(nameRange)
        switch name {
        case "lt": text.append(UInt8(ascii: "<"))
        case "gt": text.append(UInt8(ascii: ">"))
        case "amp": text.append(UInt8(ascii: "&"))
        case "apos": text.append(UInt8(ascii: "'"))
        case "quot": text.append(UInt8(ascii: "\""))
        default:
            if declaredEntities.contains(name) {
                throw error(
                    "entity &\(name); is declared in the DOCTYPE, and DTD entities are never expanded", at: start)
            }
            throw error("undeclared entity &\(name);", at: start)
        }
    }

    /// The value of an ASCII digit (0-9, and a-f or A-F when hexadecimal), or nil.
    static func digitValue(_ byte: UInt8, hexadecimal: Bool) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where hexadecimal: UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where hexadecimal: UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
