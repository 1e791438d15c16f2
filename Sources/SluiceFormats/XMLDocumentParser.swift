import Sluice

/// A small, strict XML 1.0 parser that turns a document into its root `XMLValue`, in pure Swift.
///
/// Why Sluice has its own: Foundation's `XMLParser` lives in FoundationXML, which loads libxml2
/// and the whole of libFoundation (megabytes of resident memory) into every program that links
/// Sluice, while a response serializer needs only a well-formedness check and a small tree.
///
/// What it refuses to do, on purpose: it never reads a DTD or anything else external, and it never
/// expands an entity declared in a DOCTYPE (a reference to one is an error), so a hostile document
/// can neither reach files or hosts (XXE) nor expand exponentially ("billion laughs"). Names are
/// kept as written (`atom:link`), without namespace processing, as `xml()` has always delivered them.
///
/// It reads the bytes in place, and keeps the open elements on an explicit stack bounded by
/// `maximumDepth`: a deeply nested document is an error, never a stack overflow.
///
/// One parser lives for one `parse` call: it borrows the caller's buffer, which outlives it.
struct XMLDocumentParser {
    /// How deeply elements may nest: enough for any real document, and it bounds the work and the
    /// memory a hostile one can cost (the tree's own recursive equality and destruction included).
    static let maximumDepth = 512

    /// What a caller may change about a parse; the defaults are `xml()`'s.
    struct Options {
        /// How deeply elements may nest.
        var maximumDepth = XMLDocumentParser.maximumDepth
        /// Whether an element's text is kept as written: the whitespace around it, and line ends as
        /// they are (XML reads CR LF and a lone CR as LF). A property list's `<string>` must be, as
        /// Core Foundation and `PropertyListDecoder` read it; `xml()` trims and normalizes.
        var keepsTextAsWritten = false
        /// Whether whitespace may come before the XML declaration and a document may be UTF-16
        /// with a byte order mark: not well-formed XML, but property lists arrive so and
        /// `PropertyListDecoder` read them.
        var acceptsLooseStart = false
    }

    /// The message of the error for nesting deeper than `limit`, so that a caller can tell it.
    static func nestingMessage(limit: Int) -> String {
        "elements nested more than \(limit) deep"
    }

    /// The document's bytes; every read goes through `byte(at:)` or is behind a bounds check.
    let bytes: UnsafeBufferPointer<UInt8>
    /// What this parse may do.
    var options = Options()
    /// Whether `bytes` is a UTF-8 copy of a UTF-16 document, whose declaration may then name UTF-16.
    var isTranscodedFromUTF16 = false
    /// Where the document starts: after a byte order mark, so columns do not count it.
    var documentStart = 0
    /// The offset of the next byte to read.
    var position = 0
    /// The general entities the DOCTYPE declares: never expanded, only remembered so that a
    /// reference to one gets a clearer error than an undeclared one.
    var declaredEntities: Set<String> = []

    /// Creates a parser at the start of `bytes` that parses with `options`.
    init(bytes: UnsafeBufferPointer<UInt8>, options: Options = Options()) {
        self.bytes = bytes
        self.options = options
    }

    /// The root element of the document in `bytes` (UTF-8, or ISO-8859-1 when the XML declaration
    /// says so), or the first well-formedness error with its line and column.
    static func parse(_ bytes: some Collection<UInt8>, options: Options = Options()) throws(XMLSyntaxError) -> XMLValue
    {
        try withContiguousBytes(of: bytes) { buffer throws(XMLSyntaxError) in try parse(buffer, options: options) }
    }

    /// The root element of the document in `buffer`; see `parse(_:options:)`.
    static func parse(_ buffer: UnsafeBufferPointer<UInt8>, options: Options = Options()) throws(XMLSyntaxError)
        -> XMLValue
    {
        if options.acceptsLooseStart, let utf8 = try transcodeUTF16(buffer) {
            return try withContiguousBytes(of: utf8) { utf8 throws(XMLSyntaxError) in
                var parser = XMLDocumentParser(bytes: utf8, options: options)
                parser.isTranscodedFromUTF16 = true
                return try parser.readDeclarationAndDocument()
            }
        }
        var parser = XMLDocumentParser(bytes: buffer, options: options)
        let hasByteOrderMark = try parser.skipByteOrderMark()
        if options.acceptsLooseStart { parser.skipWhitespace() }
        switch try parser.readXMLDeclaration() {
        case .utf8:
            return try parser.readDocument()
        case .latin1:
            if hasByteOrderMark {
                throw parser.error("the document declares ISO-8859-1 but starts with a UTF-8 byte order mark", at: 0)
            }
            // Every Latin-1 byte is one character, so lines and columns in the UTF-8 copy are
            // those of the original.
            let utf8 = transcodeLatin1(buffer)
            return try withContiguousBytes(of: utf8) { utf8 throws(XMLSyntaxError) in
                var parser = XMLDocumentParser(bytes: utf8, options: options)
                return try parser.readDeclarationAndDocument()
            }
        }
    }

    /// The XML declaration and the document, in a UTF-8 copy of a document in another encoding.
    private mutating func readDeclarationAndDocument() throws(XMLSyntaxError) -> XMLValue {
        if options.acceptsLooseStart { skipWhitespace() }
        if case .latin1 = try readXMLDeclaration(), isTranscodedFromUTF16 {
            throw error("the document declares ISO-8859-1 but starts with a UTF-16 byte order mark", at: 0)
        }
        return try readDocument()
    }

    /// An element whose start tag has been read and whose end tag has not.
    struct OpenElement {
        /// Where its name is in the input, to compare the end tag's bytes without a `String`.
        let nameRange: Range<Int>
        /// The offset of its `<`, to say where an unclosed element was opened.
        let start: Int
        /// Its name and attributes so far, and the children closed so far, in order.
        var value: XMLValue
        /// Its direct character data, as UTF-8 (references resolved, line ends normalized).
        var text: [UInt8] = []

        /// The finished element: its text trimmed at both ends of XML whitespace only (a no-break
        /// space is text) unless it `keepsTextAsWritten`, and decoded (it was validated as UTF-8 on
        /// the way in).
        func finished(keepsTextAsWritten: Bool) -> XMLValue {
            var first = text.startIndex
            var last = text.endIndex
            if !keepsTextAsWritten {
                while first < last, XMLDocumentParser.isWhitespace(text[first]) { first += 1 }
                while last > first, XMLDocumentParser.isWhitespace(text[last - 1]) { last -= 1 }
            }
            var value = value
            value.text = String(decoding: text[first..<last], as: UTF8.self)
            return value
        }
    }

    /// Everything after the XML declaration: the prolog, the root element and what follows it.
    ///
    /// A loop over markup with the open elements on a stack, rather than a recursive descent, so
    /// nesting costs heap, bounded by `maximumDepth`, instead of the thread's stack.
    mutating func readDocument() throws(XMLSyntaxError) -> XMLValue {
        var open: [OpenElement] = []
        var root: XMLValue?
        var hasDoctype = false
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "<") {
                switch self.byte(at: position + 1) {
                case UInt8(ascii: "/"):
                    guard let element = open.popLast() else {
                        throw error(root == nil ? "end tag without a start tag" : "end tag after the root element")
                    }
                    try readEndTag(closing: element)
                    let value = element.finished(keepsTextAsWritten: options.keepsTextAsWritten)
                    if open.isEmpty {
                        root = value
                    } else {
                        open[open.count - 1].value.children.append(value)
                    }
                case UInt8(ascii: "?"):
                    try skipProcessingInstruction()
                case UInt8(ascii: "!"):
                    if matches("<!--") {
                        try skipComment()
                    } else if matches("<![CDATA[") {
                        guard !open.isEmpty else { throw error("CDATA section outside the root element") }
                        try readCDATA(into: &open[open.count - 1].text)
                    } else if matches("<!DOCTYPE") {
                        guard !hasDoctype, root == nil, open.isEmpty else {
                            throw error("a DOCTYPE declaration is allowed only once, before the root element")
                        }
                        hasDoctype = true
                        try skipDoctype()
                    } else {
                        throw error("expected a comment, a CDATA section or a DOCTYPE after '<!'")
                    }
                default:
                    if root != nil, open.isEmpty { throw error("a second root element") }
                    if open.count == options.maximumDepth {
                        throw error(Self.nestingMessage(limit: options.maximumDepth))
                    }
                    let (element, isEmpty) = try readStartTag()
                    if !isEmpty {
                        open.append(element)
                    } else if open.isEmpty {
                        root = element.finished(keepsTextAsWritten: options.keepsTextAsWritten)
                    } else {
                        open[open.count - 1].value.children.append(
                            element.finished(keepsTextAsWritten: options.keepsTextAsWritten))
                    }
                }
            } else if open.isEmpty {
                // Between the prolog's and the epilog's markup, only whitespace.
                guard Self.isWhitespace(byte) else {
                    throw error(root == nil ? "text before the root element" : "text after the root element")
                }
                position += 1
            } else {
                try readText(into: &open[open.count - 1].text)
            }
        }
        if let element = open.last {
            let opened = location(of: element.start)
            throw error(
                "end of input inside <\(element.value.name)> (opened at line \(opened.line), column \(opened.column))")
        }
        guard let root else { throw error("no root element") }
        return root
    }
}
