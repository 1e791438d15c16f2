import FoundationEssentials
import Sluice

/// Reads an XML property list into a `PropertyListObject`: Sluice's own XML parser builds the
/// element tree (strict, never loading a DTD or expanding an entity, bounded in depth), and each
/// element of Apple's property-list DTD becomes its value, in one pass.
///
/// It reads what Core Foundation (`PropertyListSerialization`) and `PropertyListDecoder` read,
/// except where they guessed: a value's own text is checked strictly (`PropertyListText`), an
/// unknown element or text between a dictionary's entries is an error, and so is any XML that is
/// not well-formed. A `<real>` stays `.real` even when it is whole, as in Core Foundation. What it
/// accepts beyond the DTD, as Core Foundation did: a value at the root without `<plist>` around
/// it, a `<key>` used as a string value, a repeated key (the last value wins), attributes
/// (ignored), whitespace before the XML declaration, and UTF-16 with a byte order mark.
enum XMLPropertyList {
    /// How the XML parser reads a property list: one level deeper than values may nest, for the
    /// `<plist>` around them; a `<string>`'s text as written, spaces included.
    static let parserOptions = XMLDocumentParser.Options(
        maximumDepth: PropertyListObject.maximumDepth + 1, keepsTextAsWritten: true, acceptsLooseStart: true)

    /// The value of the XML property list in `body`, or what is wrong with it.
    static func parse(_ body: Data) throws(PropertyListSyntaxError) -> PropertyListObject {
        let root: XMLValue
        do {
            root = try XMLDocumentParser.parse(body, options: parserOptions)
        } catch {
            if error.message == XMLDocumentParser.nestingMessage(limit: parserOptions.maximumDepth) {
                throw tooDeep
            }
            throw PropertyListSyntaxError("line \(error.line), column \(error.column): \(error.message)")
        }
        guard root.name == "plist" else { return try value(of: root, depth: 1) }
        try checkOnlyWhitespace(in: root)
        guard root.children.count == 1 else {
            throw PropertyListSyntaxError(root.children.isEmpty ? "empty <plist>" : "<plist> holds more than one value")
        }
        return try value(of: root.children[0], depth: 1)
    }

    /// The error for values nested deeper than `PropertyListObject.maximumDepth`.
    static var tooDeep: PropertyListSyntaxError {
        PropertyListSyntaxError(XMLDocumentParser.nestingMessage(limit: PropertyListObject.maximumDepth))
    }

    /// The value an element stands for, at `depth` (1 for the top value).
    ///
    /// Recursive, which is safe: the XML parser has already bounded the depth.
    static func value(of element: XMLValue, depth: Int) throws(PropertyListSyntaxError) -> PropertyListObject {
        guard depth <= PropertyListObject.maximumDepth else { throw tooDeep }
        switch element.name {
        case "dict":
            return .dictionary(try dictionary(element, depth: depth))
        case "array":
            try checkOnlyWhitespace(in: element)
            var elements: [PropertyListObject] = []
            elements.reserveCapacity(element.children.count)
            for child in element.children { elements.append(try value(of: child, depth: depth + 1)) }
            return .array(elements)
        case "string", "key":
            return .string(try text(of: element))
        case "integer":
            return try PropertyListText.integer(text(of: element))
        case "real":
            return .real(try PropertyListText.real(text(of: element)))
        case "date":
            return .date(try PropertyListText.date(text(of: element)))
        case "data":
            return .data(try PropertyListText.data(text(of: element)))
        case "true", "false":
            guard element.children.isEmpty, PropertyListText.trimmed(element.text).isEmpty else {
                throw PropertyListSyntaxError("<\(element.name)> must be empty")
            }
            return .bool(element.name == "true")
        default:
            throw PropertyListSyntaxError("unknown element <\(element.name)>")
        }
    }

    /// A `<dict>`'s entries: each `<key>` followed by its value.
    static func dictionary(_ element: XMLValue, depth: Int) throws(PropertyListSyntaxError)
        -> [String: PropertyListObject]
    {
        try checkOnlyWhitespace(in: element)
        let children = element.children
        var entries: [String: PropertyListObject] = [:]
        entries.reserveCapacity(children.count / 2)
        var index = 0
        while index < children.count {
            guard children[index].name == "key" else {
                throw PropertyListSyntaxError("<\(children[index].name)> where <dict> expects a <key>")
            }
            let key = try text(of: children[index])
            guard index + 1 < children.count else {
                throw PropertyListSyntaxError("key \(PropertyListText.quoted(key)) in <dict> has no value")
            }
            entries[key] = try value(of: children[index + 1], depth: depth + 1)
            index += 2
        }
        // `PropertyListDecoder` read this as an NSKeyedArchiver UID, which it decoded as nothing.
        if children.count == 2, entries.keys.first == "CF$UID" {
            throw PropertyListSyntaxError("a <dict> of only CF$UID is an NSKeyedArchiver UID, which is not supported")
        }
        return entries
    }

    /// The text of an element that holds only text.
    static func text(of element: XMLValue) throws(PropertyListSyntaxError) -> String {
        guard element.children.isEmpty else { throw unexpected(element.children[0], in: element) }
        return element.text
    }

    /// Fails unless `element`'s own text is only whitespace, as between a container's values.
    static func checkOnlyWhitespace(in element: XMLValue) throws(PropertyListSyntaxError) {
        let text = PropertyListText.trimmed(element.text)
        guard text.isEmpty else {
            let quoted = PropertyListText.quoted(String(decoding: text, as: UTF8.self))
            throw PropertyListSyntaxError("text \(quoted) inside <\(element.name)>, which holds only elements")
        }
    }

    /// The error for an element where its parent holds none.
    static func unexpected(_ child: XMLValue, in element: XMLValue) -> PropertyListSyntaxError {
        PropertyListSyntaxError("<\(child.name)> inside <\(element.name)>, which holds only text")
    }
}
