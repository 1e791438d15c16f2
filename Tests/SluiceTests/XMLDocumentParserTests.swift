import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// Sluice's own XML parser, on documents it must read and the trees it builds.
///
/// The malformed documents, each with the line and column of its error, are in
/// `XMLDocumentParserTests+Errors.swift`.
@Suite("XML documents into XMLValue trees")
struct XMLDocumentParserTests {
    /// Parses `text`'s UTF-8.
    static func parse(_ text: String) throws(XMLSyntaxError) -> XMLValue {
        try XMLDocumentParser.parse(Array(text.utf8))
    }

    @Test func anAtomFeedKeepsQualifiedNamesAttributesAndCDATA() throws {
        let feed = try Self.parse(
            """
            <?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:atom="http://www.w3.org/2005/Atom" xml:lang="en">
              <title type="text">News &amp; views</title>
              <atom:link href="https://example.test/feed?a=1&amp;b=2" rel="self"/>
              <entry id="1"><title>First</title></entry>
              <entry id="2"><title><![CDATA[Second & last <b>]]></title></entry>
            </feed>
            """)
        #expect(feed.name == "feed")
        #expect(
            feed.attributes == [
                "xmlns": "http://www.w3.org/2005/Atom", "xmlns:atom": "http://www.w3.org/2005/Atom", "xml:lang": "en",
            ])
        #expect(feed.text.isEmpty)
        #expect(feed.children.map(\.name) == ["title", "atom:link", "entry", "entry"])
        #expect(feed["title"] == XMLValue(name: "title", attributes: ["type": "text"], text: "News & views"))
        #expect(feed["atom:link"]?.attributes == ["href": "https://example.test/feed?a=1&b=2", "rel": "self"])
        #expect(feed.children(named: "entry").map { $0.attributes["id"] } == ["1", "2"])
        #expect(feed.children(named: "entry").first?["title"]?.text == "First")
        #expect(feed.children(named: "entry").last?["title"]?.text == "Second & last <b>")
    }

    @Test func predefinedEntitiesAndCharacterReferencesResolveInTextAndAttributes() throws {
        let element = try Self.parse(
            #"<a x="&lt;&gt;&amp;&apos;&quot;" y='&#38;&#x26;&#xe9;&#233;&#x1F600;'>&lt;b&gt; &amp; &#233;&#xE9; &#x1F600;</a>"#
        )
        #expect(element.attributes == ["x": #"<>&'""#, "y": "&&éé😀"])
        #expect(element.text == "<b> & éé 😀")
        // A reference yields a character, never markup: `&lt;b&gt;` made no child.
        #expect(element.children.isEmpty)
    }

    @Test func selfClosingElementsAndChildrenKeepDocumentOrder() throws {
        let root = try Self.parse(#"<r><a/><b x="1" /><a></a><c>t<d/>u</c><a>last</a></r>"#)
        #expect(root.children.map(\.name) == ["a", "b", "a", "c", "a"])
        #expect(root.children[1] == XMLValue(name: "b", attributes: ["x": "1"]))
        #expect(root.children[3] == XMLValue(name: "c", children: [XMLValue(name: "d")], text: "tu"))
        #expect(root.children(named: "a").map(\.text) == ["", "", "last"])
        #expect(try Self.parse("<only/>") == XMLValue(name: "only"))
    }

    @Test func textIsEveryDirectPieceOfCharacterDataAndCDATATrimmedOfXMLWhitespace() throws {
        let element = try Self.parse("<a>\n\t  hello <b>inner</b> big <![CDATA[ wide ]]> world \r\n</a>")
        #expect(element.text == "hello  big  wide  world")
        #expect(element["b"]?.text == "inner")
        // Only XML's whitespace is trimmed (space, tab, LF, CR): a no-break space is text.
        #expect(try Self.parse("<a> \u{A0}x\u{A0} </a>").text == "\u{A0}x\u{A0}")
        // Whitespace from a character reference is trimmed too: trimming comes after resolving.
        #expect(try Self.parse("<a>&#32;x&#x20;</a>").text == "x")
    }

    @Test func lineEndsInTextAndCDATABecomeLineFeeds() throws {
        #expect(try Self.parse("<a>x\r\ny\rz\nw</a>").text == "x\ny\nz\nw")
        #expect(try Self.parse("<a><![CDATA[x\r\ny\rz]]></a>").text == "x\ny\nz")
        // A character reference is not a line end in the input: it keeps its character.
        #expect(try Self.parse("<a>x&#13;y&#xD;&#10;z</a>").text == "x\ry\r\nz")
    }

    @Test func attributeValuesAreNormalizedAndQuotedEitherWay() throws {
        let element = try Self.parse(
            "<a v=\"a\tb\nc\r\nd\re\" w=\"x&#10;y&#9;z&#13;\" q = 'say \"hi\"' d=\"it's\" e=''/>")
        #expect(element.attributes["v"] == "a b c d e")
        #expect(element.attributes["w"] == "x\ny\tz\r")
        #expect(element.attributes["q"] == #"say "hi""#)
        #expect(element.attributes["d"] == "it's")
        #expect(element.attributes["e"] == "")
        // Attribute values are not trimmed; only the element's text is.
        #expect(try Self.parse(#"<a v="  x  "/>"#).attributes["v"] == "  x  ")
    }

    @Test func namesMayBeNonASCIIAndUseEveryNameCharacter() throws {
        let element = try Self.parse(#"<café été="1" _a-b.c:d·e9="2"><ü/></café>"#)
        #expect(element.name == "café")
        #expect(element.attributes == ["été": "1", "_a-b.c:d·e9": "2"])
        #expect(element.children.map(\.name) == ["ü"])
        #expect(try Self.parse("<a>😀 ünïcödé</a>").text == "😀 ünïcödé")
    }

    @Test func commentsProcessingInstructionsAndTheDoctypeAreSkipped() throws {
        let feed = try Self.parse(
            """
            <?xml version="1.0" standalone="yes"?>
            <!-- a comment with <tags> & ampersands - and a dash -->
            <?xml-stylesheet href="style.css" type="text/css"?>
            <!DOCTYPE feed PUBLIC "-//Example//DTD Feed//EN" "http://127.0.0.1:1/feed.dtd" [
              <!ELEMENT feed (#PCDATA | item)*>
              <!ATTLIST feed lang CDATA "]>">
              <!-- ]> in a comment -->
              <?pi ]> in a processing instruction?>
              <!ENTITY % parameter "<!ENTITY x 'y'>">
              %parameter;
              <!NOTATION gif SYSTEM "image/gif">
            ]>
            <feed><!-- inside -->te<?pi inside?>xt<item/><!---->
            </feed>
            <!-- after -->
            <?pi after?>

            """)
        #expect(feed == XMLValue(name: "feed", children: [XMLValue(name: "item")], text: "text"))
        // A DOCTYPE with only a SYSTEM identifier: it is never fetched.
        #expect(try Self.parse(#"<!DOCTYPE a SYSTEM "http://127.0.0.1:1/a.dtd"><a/>"#) == XMLValue(name: "a"))
        #expect(try Self.parse("<!DOCTYPE a[]><a/>") == XMLValue(name: "a"))
        // A processing instruction whose target only starts with `xml` is not a declaration.
        #expect(try Self.parse("<?xml-stylesheet href=\"a.css\"?><a/>") == XMLValue(name: "a"))
    }

    @Test func anEntityTheDoctypeDeclaresIsNeverExpanded() throws {
        // The five predefined entities may be declared again; they keep their meaning.
        #expect(try Self.parse(#"<!DOCTYPE a [<!ENTITY lt "&#38;#60;">]><a>&lt;</a>"#).text == "<")
        // Any other declared entity is refused rather than expanded: no external entities (XXE),
        // no exponential expansion (billion laughs), in text as in attributes.
        let declared = "is declared in the DOCTYPE, and DTD entities are never expanded"
        #expect(throws: XMLSyntaxError(line: 1, column: 41, message: "entity &name; \(declared)")) {
            try Self.parse(#"<!DOCTYPE r [<!ENTITY name "value">]><r>&name;</r>"#)
        }
        #expect(throws: XMLSyntaxError(line: 1, column: 60, message: "entity &xxe; \(declared)")) {
            try Self.parse(#"<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><r>&xxe;</r>"#)
        }
        #expect(throws: XMLSyntaxError(line: 1, column: 42, message: "entity &e; \(declared)")) {
            try Self.parse(#"<!DOCTYPE r [ <!ENTITY e "v" > ] ><r a="x&e;"/>"#)
        }
        let laughs = """
            <!DOCTYPE lolz [
              <!ENTITY lol "lol">
              <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
              <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
            ]>
            <lolz>&lol2;</lolz>
            """
        #expect(throws: XMLSyntaxError(line: 6, column: 7, message: "entity &lol2; \(declared)")) {
            try Self.parse(laughs)
        }
        // A parameter entity's name is not a general entity: referencing it with `&` is undeclared.
        #expect(throws: XMLSyntaxError(line: 1, column: 35, message: "undeclared entity &p;")) {
            try Self.parse(#"<!DOCTYPE r [<!ENTITY % p "">]><r>&p;</r>"#)
        }
    }

    @Test func anUndeclaredEntityIsAnError() {
        #expect(throws: XMLSyntaxError(line: 1, column: 4, message: "undeclared entity &nbsp;")) {
            try Self.parse("<a>&nbsp;</a>")
        }
        #expect(throws: XMLSyntaxError(line: 2, column: 7, message: "undeclared entity &copy;")) {
            try Self.parse("<a>\n<b c=\"&copy;\"/></a>")
        }
    }

    @Test func nestingIsLimitedTo512Elements() throws {
        let limit = XMLDocumentParser.maximumDepth
        #expect(limit == 512)
        let deepest = String(repeating: "<a>", count: limit) + String(repeating: "</a>", count: limit)
        var element = try Self.parse(deepest)
        var depth = 1
        while let child = element.children.first {
            element = child
            depth += 1
        }
        #expect(depth == limit)
        // One more, as a start tag or as a self-closing tag: an error where it starts, not a crash.
        let tooDeep = String(repeating: "<a>", count: limit + 1) + String(repeating: "</a>", count: limit + 1)
        let expected = XMLSyntaxError(line: 1, column: 3 * limit + 1, message: "elements nested more than 512 deep")
        #expect(throws: expected) { try Self.parse(tooDeep) }
        let tooDeepEmpty = String(repeating: "<a>", count: limit) + "<b/>" + String(repeating: "</a>", count: limit)
        #expect(throws: expected) { try Self.parse(tooDeepEmpty) }
        // Far deeper input fails the same way, after reading only up to the limit.
        let hostile = String(repeating: "<a>", count: 1_000_000)
        #expect(throws: expected) { try Self.parse(hostile) }
    }

    @Test func aUTF8ByteOrderMarkIsSkippedAndNotCounted() throws {
        #expect(try Self.parse("\u{FEFF}<a>x</a>") == XMLValue(name: "a", text: "x"))
        #expect(try Self.parse("\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\"?><a/>") == XMLValue(name: "a"))
        #expect(throws: XMLSyntaxError(line: 1, column: 4, message: "mismatched end tag </b>, expected </a>")) {
            try Self.parse("\u{FEFF}<a></b>")
        }
    }

    @Test func isoLatin1IsDecodedWhenDeclared() throws {
        let declaration = Array(#"<?xml version="1.0" encoding="ISO-8859-1"?>"#.utf8)
        let document =
            declaration + Array(#"<a t="caf"#.utf8) + [0xE9] + Array(#"">"#.utf8) + [0xE9, 0x74, 0xE9]
            + Array("</a>".utf8)
        #expect(try XMLDocumentParser.parse(document) == XMLValue(name: "a", attributes: ["t": "café"], text: "été"))
        // Columns count characters, so they are the Latin-1 document's own.
        let broken = declaration + Array("\n<a>".utf8) + [0xE9, 0xE9] + Array("</b>".utf8)
        #expect(throws: XMLSyntaxError(line: 2, column: 6, message: "mismatched end tag </b>, expected </a>")) {
            try XMLDocumentParser.parse(broken)
        }
        // Latin-1 text read as UTF-8 is invalid: without the declaration it is refused, not garbled.
        #expect(throws: XMLSyntaxError(line: 1, column: 4, message: "invalid UTF-8 (byte 0xE9)")) {
            try XMLDocumentParser.parse(Array("<a>".utf8) + [0xE9] + Array("</a>".utf8))
        }
    }

    @Test func otherEncodingsAreRefused() throws {
        #expect(
            throws: XMLSyntaxError(
                line: 1, column: 31, message: "unsupported encoding UTF-16 (only UTF-8 and ISO-8859-1)")
        ) {
            try Self.parse(#"<?xml version="1.0" encoding="UTF-16"?><a/>"#)
        }
        #expect(
            throws: XMLSyntaxError(
                line: 1, column: 1, message: "UTF-16 and UTF-32 documents are not supported (only UTF-8 and ISO-8859-1)"
            )
        ) {
            try XMLDocumentParser.parse([0xFF, 0xFE] + Array("<\0a\0/\0>\0".utf8))
        }
        #expect(
            throws: XMLSyntaxError(
                line: 1, column: 1, message: "the document declares ISO-8859-1 but starts with a UTF-8 byte order mark")
        ) {
            try Self.parse("\u{FEFF}<?xml version=\"1.0\" encoding=\"latin1\"?><a/>")
        }
        // Encoding names are case-insensitive, and ASCII is read as the subset of UTF-8 it is.
        #expect(try Self.parse(#"<?xml version="1.0" encoding="us-ascii"?><a/>"#) == XMLValue(name: "a"))
        #expect(try Self.parse(#"<?xml version='1.0' encoding='Utf-8' ?><a/>"#) == XMLValue(name: "a"))
    }

    @Test func anyCollectionOfBytesCanBeParsed() throws {
        let text = "<a x=\"1\">y</a>"
        let expected = XMLValue(name: "a", attributes: ["x": "1"], text: "y")
        #expect(try XMLDocumentParser.parse(Data(text.utf8)) == expected)
        #expect(try XMLDocumentParser.parse(text.utf8) == expected)
        // Not contiguous: copied once, then parsed the same way.
        #expect(try XMLDocumentParser.parse(Array(text.utf8).lazy.map { $0 }) == expected)
    }

    @Test func theSerializerNamesTheLineAndColumnOfMalformedXML() throws {
        let request = Request(url: try #require(URL(string: "http://a.test/feed")))
        func response(_ body: String) -> Response {
            Response(status: 200, headers: ["Content-Type": "text/xml"], body: Data(body.utf8), request: request)
        }
        #expect(try XMLResponseSerializer().serialize(response("<k>v</k>")) == XMLValue(name: "k", text: "v"))
        do {
            _ = try XMLResponseSerializer().serialize(response("<a>\n  <b></a>"))
            Issue.record("malformed XML was accepted")
        } catch {
            #expect(error.code == .serializationFailed)
            #expect(
                error.message.hasPrefix("malformed XML at line 2, column 6: mismatched end tag </a>, expected </b>; "))
            let underlying = try #require(error.underlyingError as? XMLSyntaxError)
            #expect(underlying == XMLSyntaxError(line: 2, column: 6, message: "mismatched end tag </a>, expected </b>"))
            #expect(underlying.description == "line 2, column 6: mismatched end tag </a>, expected </b>")
        }
    }
}
