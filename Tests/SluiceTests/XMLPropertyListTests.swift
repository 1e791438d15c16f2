import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// XML property lists, read by Sluice's own parser: every kind of value, the forms
/// `PropertyListDecoder` also accepted, and each malformed value with the error that names it.
@Suite("XML property lists")
struct XMLPropertyListTests {
    /// The serializer's value for an XML property list whose `<plist>` holds `body`.
    static func parse(_ body: String) throws(SluiceError) -> PropertyListObject {
        try parse(
            data: Data((#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"# + body + "</plist>").utf8))
    }

    /// The serializer's value for `data`.
    static func parse(data: Data) throws(SluiceError) -> PropertyListObject {
        let request = Request(url: URL(string: "http://a.test/x")!)
        return try PropertyListResponseSerializer().serialize(
            Response(status: 200, headers: ["Content-Type": "application/x-plist"], body: data, request: request))
    }

    @Test func everyKindOfValueIsRead() throws {
        let value = try Self.parse(
            """
            <dict>
                <key>string</key><string>  spaced\ttext  </string>
                <key>escaped</key><string>&lt;&amp;&#x41;&#233;<![CDATA[<raw> ]]></string>
                <key>empty</key><string/>
                <key>line ends</key><string>a\r\nb\rc<![CDATA[\r\n]]></string>
                <key>integers</key>
                <array><integer>42</integer><integer>-7</integer><integer> +0x1F </integer><integer>- 5</integer>
                <integer>9223372036854775807</integer><integer>-9223372036854775808</integer></array>
                <key>reals</key>
                <array><real>2.5</real><real>2.0</real><real>-1e3</real><real>.5</real><real>5.</real></array>
                <key>true</key><true/>
                <key>false</key><false></false>
                <key>date</key><date>2020-02-29T12:34:56Z</date>
                <key>data</key><data>
                    AAEC
                    /w==
                </data>
                <key>empty data</key><data></data>
                <key>nested</key><dict><key>array</key><array><array/><dict/></array></dict>
            </dict>
            """)
        #expect(
            value
                == .dictionary([
                    "string": .string("  spaced\ttext  "),
                    "escaped": .string("<&Aé<raw> "),
                    // As written, as Core Foundation and PropertyListDecoder read them: XML would
                    // make each CR LF and lone CR an LF.
                    "line ends": .string("a\r\nb\rc\r\n"),
                    "empty": .string(""),
                    "integers": .array([
                        .integer(42), .integer(-7), .integer(31), .integer(-5), .integer(.max), .integer(.min),
                    ]),
                    "reals": .array([.real(2.5), .real(2), .real(-1000), .real(0.5), .real(5)]),
                    "true": .bool(true),
                    "false": .bool(false),
                    "date": .date(Date(timeIntervalSince1970: 1_582_979_696)),
                    "data": .data(Data([0, 1, 2, 255])),
                    "empty data": .data(Data()),
                    "nested": .dictionary(["array": .array([.array([]), .dictionary([:])])]),
                ]))
    }

    @Test func specialRealsAndIntegersBeyondIntReadAsPropertyListDecoderReadThem() throws {
        let value = try Self.parse(
            "<array><real>nan</real><real>-INF</real><real>+infinity</real><real>1e400</real>"
                + "<integer>18446744073709551615</integer></array>")
        guard case .array(let values) = value, values.count == 5, case .real(let nan) = values[0] else {
            Issue.record("not five values: \(value)")
            return
        }
        #expect(nan.isNaN)
        #expect(
            Array(values[1...]) == [.real(-.infinity), .real(.infinity), .real(.infinity), .real(Double(UInt64.max))])
    }

    @Test func datesCountDaysInTheProlepticGregorianCalendar() throws {
        let dates = try Self.parse(
            "<array><date>1970-01-01T00:00:00Z</date><date>0001-01-01T00:00:00Z</date>"
                + "<date>-0001-03-01T00:00:00Z</date><date>2016-12-31T23:59:60Z</date><date>10000-01-01T00:00:00Z</date></array>"
        )
        #expect(
            dates
                == .array([
                    .date(Date(timeIntervalSince1970: 0)),
                    // As ISO 8601, Core Foundation and Python's plistlib count them; PropertyListDecoder
                    // counted days before October 1582 in the Julian calendar, two days earlier here.
                    .date(Date(timeIntervalSince1970: -62_135_596_800)),
                    .date(Date(timeIntervalSince1970: -62_193_657_600)),
                    .date(Date(timeIntervalSince1970: 1_483_228_800)),
                    .date(Date(timeIntervalSince1970: 253_402_300_800)),
                ]))
    }

    @Test func whatPropertyListDecoderAlsoAcceptedIsRead() throws {
        // A value without <plist>, a <key> as a string value, a repeated key (the last wins),
        // attributes, comments and a DOCTYPE (never fetched).
        #expect(try Self.parse(data: Data("<array><key>k</key></array>".utf8)) == .array([.string("k")]))
        #expect(
            try Self.parse(
                #"<dict a="1"><key>k</key><string>1</string><!-- c --><key>k</key><string>2</string></dict>"#)
                == .dictionary(["k": .string("2")]))
        let doctype =
            #"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#
        #expect(try Self.parse(data: Data((doctype + "<plist><true/></plist>").utf8)) == .bool(true))
        // Whitespace before the XML declaration, which XML itself does not allow.
        #expect(try Self.parse(data: Data("\n  <?xml version=\"1.0\"?>\n<plist><true/></plist>".utf8)) == .bool(true))
    }

    @Test(arguments: [true, false])
    func utf16WithAByteOrderMarkIsRead(bigEndian: Bool) throws {
        let text = #"<?xml version="1.0" encoding="UTF-16"?><plist><array><string>é 😀</string></array></plist>"#
        let units = text.utf16.flatMap {
            bigEndian ? [UInt8($0 >> 8), UInt8($0 & 0xFF)] : [UInt8($0 & 0xFF), UInt8($0 >> 8)]
        }
        let mark: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        #expect(try Self.parse(data: Data(mark + units)) == .array([.string("é 😀")]))
        // An unpaired surrogate is an error, where it is.
        let broken = Data(mark + units.prefix(4) + (bigEndian ? [0xD8, 0x00] : [0x00, 0xD8]) + units.dropFirst(4))
        #expect(throws: SluiceError.self) { try Self.parse(data: broken) }
    }

    @Test(arguments: [
        ("<integer>abc</integer>", #"<integer> "abc" is not an integer"#),
        ("<integer>1.5</integer>", #"<integer> "1.5" is not an integer"#),
        ("<integer>0x</integer>", #"<integer> "0x" is not an integer"#),
        ("<integer>  </integer>", "empty <integer>"),
        ("<integer>18446744073709551616</integer>", #"<integer> "18446744073709551616" does not fit in 64 bits"#),
        ("<integer>-9223372036854775809</integer>", #"<integer> "-9223372036854775809" does not fit in 64 bits"#),
        ("<real>abc</real>", #"<real> "abc" is not a number"#),
        ("<real>0x1p3</real>", #"<real> "0x1p3" is not a number"#),
        ("<real>1e</real>", #"<real> "1e" is not a number"#),
        ("<real>1,5</real>", #"<real> "1,5" is not a number"#),
        ("<real>nan(1)</real>", #"<real> "nan(1)" is not a number"#),
        ("<real/>", "empty <real>"),
        (
            "<date>2020-13-01T00:00:00Z</date>",
            #"<date> "2020-13-01T00:00:00Z" is not a date: a field is out of its range"#
        ),
        (
            "<date>2019-02-29T00:00:00Z</date>",
            #"<date> "2019-02-29T00:00:00Z" is not a date: a field is out of its range"#
        ),
        (
            "<date>2020-01-01T24:00:00Z</date>",
            #"<date> "2020-01-01T24:00:00Z" is not a date: a field is out of its range"#
        ),
        ("<date>2020-01-01</date>", #"<date> "2020-01-01" is not a date of the form yyyy-MM-ddTHH:mm:ssZ"#),
        (
            "<date>2020-01-01T00:00:00.5Z</date>",
            #"<date> "2020-01-01T00:00:00.5Z" is not a date of the form yyyy-MM-ddTHH:mm:ssZ"#
        ),
        (
            "<date>20-01-01T00:00:00Z</date>",
            #"<date> "20-01-01T00:00:00Z" is not a date of the form yyyy-MM-ddTHH:mm:ssZ"#
        ),
        ("<data>AA!=</data>", "<data> is not base64: '!' is not a base64 character"),
        ("<data>AAé=</data>", "<data> is not base64: byte 0xC3 is not a base64 character"),
        ("<data>AA=A</data>", "<data> is not base64: text after the '=' padding"),
        ("<data>=AAA</data>", "<data> is not base64: misplaced '=' padding"),
        ("<data>AAAA=</data>", "<data> is not base64: misplaced '=' padding"),
        ("<data>AAAAA</data>", "<data> is not base64: it ends inside a group of four characters"),
        ("<data>AA=</data>", "<data> is not base64: it ends inside a group of four characters"),
        ("<dict><key>a</key></dict>", #"key "a" in <dict> has no value"#),
        ("<dict><string>a</string><true/></dict>", "<string> where <dict> expects a <key>"),
        ("<dict>x<key>a</key><true/></dict>", #"text "x" inside <dict>, which holds only elements"#),
        ("<array><true/> , <false/></array>", #"text "," inside <array>, which holds only elements"#),
        ("<array><foo/></array>", "unknown element <foo>"),
        ("<string>a<b/>c</string>", "<b> inside <string>, which holds only text"),
        ("<true>yes</true>", "<true> must be empty"),
        ("<false><true/></false>", "<false> must be empty"),
        ("", "empty <plist>"),
        ("<true/><false/>", "<plist> holds more than one value"),
        (
            "<dict><key>CF$UID</key><integer>1</integer></dict>",
            "a <dict> of only CF$UID is an NSKeyedArchiver UID, which is not supported"
        ),
        ("<array></dict>", "line 1, column 67: mismatched end tag </dict>, expected </array>"),
        ("<string>&e;</string>", "line 1, column 68: undeclared entity &e;"),
    ])
    func aMalformedValueNamesWhatIsWrong(_ body: String, _ expected: String) {
        do {
            let value = try Self.parse(body)
            Issue.record("read as \(value)")
        } catch {
            #expect(error.message.hasPrefix("malformed property list: \(expected); "), "\(error.message)")
            #expect(error.underlyingError as? PropertyListSyntaxError == PropertyListSyntaxError(expected))
        }
    }

    @Test func anEntityTheDoctypeDeclaresIsNeverExpanded() {
        let body = #"<!DOCTYPE plist [<!ENTITY e "expanded">]><plist><string>&e;</string></plist>"#
        #expect {
            try Self.parse(data: Data(body.utf8))
        } throws: { error in
            (error as? SluiceError)?.message.contains("DTD entities are never expanded") == true
        }
    }
}
