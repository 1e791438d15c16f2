import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// A malformed document and the error it must fail with: where (1-based, in characters) and why.
struct MalformedXML: Sendable, CustomTestStringConvertible {
    /// The document.
    let bytes: [UInt8]
    /// The expected error.
    let error: XMLSyntaxError

    /// A document given as text.
    init(_ text: String, _ line: Int, _ column: Int, _ message: String) {
        self.init(bytes: Array(text.utf8), line, column, message)
    }

    /// A document given as bytes, for those that are not valid UTF-8.
    init(bytes: [UInt8], _ line: Int, _ column: Int, _ message: String) {
        self.bytes = bytes
        error = XMLSyntaxError(line: line, column: column, message: message)
    }

    /// The document, escaped, so a failing case names itself.
    var testDescription: String { String(decoding: bytes, as: UTF8.self).debugDescription }
}

/// Text around `bytes`, as bytes: for documents that are not valid UTF-8 or hold control characters.
private func bytes(_ before: String, _ bytes: [UInt8], _ after: String) -> [UInt8] {
    Array(before.utf8) + bytes + Array(after.utf8)
}

extension XMLDocumentParserTests {
    /// Checks that `document` fails with exactly its expected error.
    func check(_ document: MalformedXML) {
        #expect(throws: document.error) { try XMLDocumentParser.parse(document.bytes) }
    }

    @Test(arguments: [
        MalformedXML("<a><b></a>", 1, 7, "mismatched end tag </a>, expected </b>"),
        MalformedXML("<a>\n  <b>\n</a>", 3, 1, "mismatched end tag </a>, expected </b>"),
        MalformedXML("<a>\r\n<b>\r\n</a>", 3, 1, "mismatched end tag </a>, expected </b>"),
        MalformedXML("<a>\r<b>\r</a>", 3, 1, "mismatched end tag </a>, expected </b>"),
        MalformedXML("<é>ü</a>", 1, 5, "mismatched end tag </a>, expected </é>"),
        MalformedXML("<a:b></a:c>", 1, 6, "mismatched end tag </a:c>, expected </a:b>"),
        MalformedXML("<a><b>", 1, 7, "end of input inside <b> (opened at line 1, column 4)"),
        MalformedXML("<a>\n", 2, 1, "end of input inside <a> (opened at line 1, column 1)"),
        MalformedXML("<a/>text", 1, 5, "text after the root element"),
        MalformedXML("<a/>\n<b/>", 2, 1, "a second root element"),
        MalformedXML("text<a/>", 1, 1, "text before the root element"),
        MalformedXML("&amp;<a/>", 1, 1, "text before the root element"),
        MalformedXML("", 1, 1, "no root element"),
        MalformedXML("<!-- only -->", 1, 14, "no root element"),
        MalformedXML("  \n ", 2, 2, "no root element"),
        MalformedXML("</a>", 1, 1, "end tag without a start tag"),
        MalformedXML("<a/></a>", 1, 5, "end tag after the root element"),
        MalformedXML("<a>1 < 2</a>", 1, 6, "'<' must start a tag (write &lt; for a literal '<')"),
        MalformedXML("<1a/>", 1, 1, "'<' must start a tag (write &lt; for a literal '<')"),
        MalformedXML("<a></ a>", 1, 6, "expected a name after '</'"),
        MalformedXML("<a></a x>", 1, 8, "expected '>' to close the end tag </a>"),
        MalformedXML("<a></a", 1, 7, "end of input inside the end tag </a>"),
        MalformedXML("<a", 1, 3, "end of input inside the start tag <a>"),
        MalformedXML("<a x=\"1\"", 1, 9, "end of input inside the start tag <a>"),
    ])
    func tagsMustNestAndThereIsExactlyOneRoot(_ document: MalformedXML) {
        check(document)
    }

    @Test(arguments: [
        MalformedXML(#"<a x="1<2"/>"#, 1, 8, "'<' is not allowed in an attribute value (write &lt;)"),
        MalformedXML(#"<a x="1/>"#, 1, 6, "unterminated value of the attribute x"),
        MalformedXML(#"<a x='1"/>"#, 1, 6, "unterminated value of the attribute x"),
        MalformedXML(#"<a 1="x"/>"#, 1, 4, "expected an attribute name, '>' or '/>' in the start tag <a>"),
        MalformedXML(#"<a x="1"y="2"/>"#, 1, 9, "expected an attribute name, '>' or '/>' in the start tag <a>"),
        MalformedXML("<a x/>", 1, 5, "expected '=' after the attribute name x"),
        MalformedXML("<a x=1/>", 1, 6, "expected a quoted value for the attribute x"),
        MalformedXML(#"<a x="1" x='2'/>"#, 1, 10, "duplicate attribute x in <a>"),
        MalformedXML("<a/ >", 1, 3, "expected '>' after '/'"),
    ])
    func attributesAreQuotedUniqueAndFreeOfMarkup(_ document: MalformedXML) {
        check(document)
    }

    @Test(arguments: [
        MalformedXML(
            "<a>fish & chips</a>", 1, 9, "'&' must start a reference such as &amp; (write &amp; for a literal '&')"),
        MalformedXML("<a>&amp</a>", 1, 8, "expected ';' to end the reference &amp"),
        MalformedXML("<a>&#;</a>", 1, 4, "malformed character reference (expected &#digits; or &#xhex;)"),
        MalformedXML("<a>&#X26;</a>", 1, 4, "malformed character reference (expected &#digits; or &#xhex;)"),
        MalformedXML("<a>&#x26</a>", 1, 4, "malformed character reference (expected &#digits; or &#xhex;)"),
        MalformedXML("<a>&#12a;</a>", 1, 4, "malformed character reference (expected &#digits; or &#xhex;)"),
        MalformedXML("<a>&#0;</a>", 1, 4, "character reference &#0; names a character XML does not allow"),
        MalformedXML("<a>&#1;</a>", 1, 4, "character reference &#1; names a character XML does not allow"),
        MalformedXML("<a>&#xD800;</a>", 1, 4, "character reference &#xD800; names a character XML does not allow"),
        MalformedXML("<a>&#xFFFE;</a>", 1, 4, "character reference &#xFFFE; names a character XML does not allow"),
        MalformedXML("<a>&#x110000;</a>", 1, 4, "character reference &#x110000; names a character XML does not allow"),
        MalformedXML(
            "<a>&#99999999999999999999;</a>", 1, 4,
            "character reference &#99999999999999999999; names a character XML does not allow"),
        MalformedXML(#"<a x="&bogus;"/>"#, 1, 7, "undeclared entity &bogus;"),
    ])
    func ampersandsStartWellFormedReferencesToAllowedCharacters(_ document: MalformedXML) {
        check(document)
    }

    @Test(arguments: [
        MalformedXML(bytes: bytes("<a>", [0x01], "</a>"), 1, 4, "character U+0001 is not allowed in XML"),
        MalformedXML(bytes: bytes("<a>", [0x00], "</a>"), 1, 4, "character U+0000 is not allowed in XML"),
        MalformedXML(bytes: bytes("<a>", [0xEF, 0xBF, 0xBE], "</a>"), 1, 4, "character U+FFFE is not allowed in XML"),
        MalformedXML(bytes: bytes("<a>é", [0xFF], "</a>"), 1, 5, "invalid UTF-8 (byte 0xFF)"),
        MalformedXML(bytes: bytes("<a>", [0xC0, 0xAF], "</a>"), 1, 4, "invalid UTF-8 (byte 0xC0)"),
        MalformedXML(bytes: bytes("<a>", [0xE0, 0x80, 0xAF], "</a>"), 1, 4, "invalid UTF-8 (byte 0xE0)"),
        MalformedXML(bytes: bytes("<a>", [0xED, 0xA0, 0x80], "</a>"), 1, 4, "invalid UTF-8 (byte 0xED)"),
        MalformedXML(bytes: bytes("<a>", [0xF4, 0x90, 0x80, 0x80], "</a>"), 1, 4, "invalid UTF-8 (byte 0xF4)"),
        MalformedXML(bytes: bytes("<a>", [0xE2, 0x82], ""), 1, 4, "invalid UTF-8 (byte 0xE2)"),
        MalformedXML(bytes: bytes("<a x=\"", [0xFF], "\"/>"), 1, 7, "invalid UTF-8 (byte 0xFF)"),
        MalformedXML(bytes: bytes("<!--", [0x01], "--><a/>"), 1, 5, "character U+0001 is not allowed in XML"),
        MalformedXML(bytes: bytes("<a><![CDATA[", [0x1F], "]]></a>"), 1, 13, "character U+001F is not allowed in XML"),
        MalformedXML(bytes: bytes("<a><?pi ", [0x80], "?></a>"), 1, 9, "invalid UTF-8 (byte 0x80)"),
        MalformedXML("<a>x]]></a>", 1, 5, "']]>' is not allowed in text"),
    ])
    func everyCharacterIsWellFormedUTF8ThatXMLAllows(_ document: MalformedXML) {
        check(document)
    }

    @Test(arguments: [
        MalformedXML("<a><!-- x </a>", 1, 4, "unterminated comment (no -->)"),
        MalformedXML("<a><!-- a -- b --></a>", 1, 11, "'--' is not allowed inside a comment"),
        MalformedXML("<a><!-- a ---></a>", 1, 11, "'--' is not allowed inside a comment"),
        MalformedXML("<a><![CDATA[x</a>", 1, 4, "unterminated CDATA section (no ]]>)"),
        MalformedXML("<![CDATA[x]]><a/>", 1, 1, "CDATA section outside the root element"),
        MalformedXML("<a><?pi x</a>", 1, 4, "unterminated processing instruction (no ?>)"),
        MalformedXML("<a><? x?></a>", 1, 6, "expected a name after '<?'"),
        MalformedXML("<a><?pi/x?></a>", 1, 8, "expected whitespace or '?>' after the processing instruction's target"),
        MalformedXML(
            "<a><?xml version=\"1.0\"?></a>", 1, 4,
            "the XML declaration is allowed only at the very start of the document"),
        MalformedXML(
            "\n<?xml version=\"1.0\"?><a/>", 2, 1,
            "the XML declaration is allowed only at the very start of the document"),
        MalformedXML(
            " <?XML version=\"1.0\"?><a/>", 1, 2,
            "the XML declaration is allowed only at the very start of the document"),
        MalformedXML("<a><!ELEMENT></a>", 1, 4, "expected a comment, a CDATA section or a DOCTYPE after '<!'"),
    ])
    func commentsCDATAAndProcessingInstructionsAreClosed(_ document: MalformedXML) {
        check(document)
    }

    @Test(arguments: [
        MalformedXML("<a/><!DOCTYPE a>", 1, 5, "a DOCTYPE declaration is allowed only once, before the root element"),
        MalformedXML(
            "<!DOCTYPE a><!DOCTYPE a><a/>", 1, 13, "a DOCTYPE declaration is allowed only once, before the root element"
        ),
        MalformedXML("<!DOCTYPE>", 1, 10, "expected whitespace and the root element's name after <!DOCTYPE"),
        MalformedXML("<!DOCTYPE a", 1, 1, "unterminated DOCTYPE declaration"),
        MalformedXML("<!DOCTYPE a [", 1, 1, "unterminated DOCTYPE declaration"),
        MalformedXML("<!DOCTYPE a x><a/>", 1, 13, "expected '>' to end the DOCTYPE declaration"),
        MalformedXML("<!DOCTYPE a SYSTEM><a/>", 1, 19, "expected whitespace before a quoted identifier"),
        MalformedXML("<!DOCTYPE a PUBLIC \"p\"><a/>", 1, 23, "expected whitespace before a quoted identifier"),
        MalformedXML("<!DOCTYPE a SYSTEM \"x><a/>", 1, 20, "unterminated quoted value in the DOCTYPE"),
        MalformedXML("<!DOCTYPE a [<!FOO x>]><a/>", 1, 16, "expected ELEMENT, ATTLIST, ENTITY or NOTATION after '<!'"),
        MalformedXML(
            "<!DOCTYPE a [ x ]><a/>", 1, 15,
            "expected a declaration, a comment or ']' in the DOCTYPE's internal subset"),
        MalformedXML("<!DOCTYPE a [<!ENTITY e \"v]><a/>", 1, 25, "unterminated quoted value in the DOCTYPE"),
        MalformedXML("<!DOCTYPE a [<!ENTITY\"x\">]><a/>", 1, 22, "expected whitespace after <!ENTITY"),
        MalformedXML("<!DOCTYPE a [<!ELEMENT a ANY", 1, 14, "unterminated <!ELEMENT declaration"),
        MalformedXML("<!DOCTYPE a [%pe]><a/>", 1, 17, "malformed parameter-entity reference"),
    ])
    func theDoctypeIsWellFormed(_ document: MalformedXML) {
        check(document)
    }

    @Test(arguments: [
        MalformedXML("<?xml version=\"1.0\"", 1, 1, "unterminated XML declaration"),
        MalformedXML("<?xml ?><a/>", 1, 7, "expected version in the XML declaration"),
        MalformedXML(
            "<?xml encoding=\"UTF-8\"?><a/>", 1, 7,
            "unexpected encoding in the XML declaration (version, then encoding, then standalone)"),
        MalformedXML(
            "<?xml version=\"1.0\" standalone=\"yes\" encoding=\"UTF-8\"?><a/>", 1, 38,
            "unexpected encoding in the XML declaration (version, then encoding, then standalone)"),
        MalformedXML(
            "<?xml version=\"1.0\" version=\"1.0\"?><a/>", 1, 21,
            "unexpected version in the XML declaration (version, then encoding, then standalone)"),
        MalformedXML(
            "<?xml version=\"1.0\" foo=\"x\"?><a/>", 1, 21,
            "unexpected foo in the XML declaration (version, then encoding, then standalone)"),
        MalformedXML("<?xml version=\"1.0\"encoding=\"UTF-8\"?><a/>", 1, 20, "expected '?>'"),
        MalformedXML("<?xml version=1.0?><a/>", 1, 15, "expected a quoted value in the XML declaration"),
        MalformedXML("<?xml version\"1.0\"?><a/>", 1, 14, "expected '=' after version"),
        // The values have a grammar too: these were accepted as long as they were quoted.
        MalformedXML("<?xml version=\"1.<\"?><a/>", 1, 16, "malformed version 1.< (expected 1.0)"),
        MalformedXML("<?xml version=\"-.0\"?><a/>", 1, 16, "malformed version -.0 (expected 1.0)"),
        MalformedXML("<?xml version=\"10\"?><a/>", 1, 16, "malformed version 10 (expected 1.0)"),
        MalformedXML("<?xml version='1.'?><a/>", 1, 16, "malformed version 1. (expected 1.0)"),
        MalformedXML("<?xml version=\"1.0\" standalone=\"maybe\"?><a/>", 1, 33, "standalone must be yes or no"),
    ])
    func theXMLDeclarationIsWellFormed(_ document: MalformedXML) {
        check(document)
    }
}
