import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// What the move from Foundation to FoundationEssentials got wrong at first, each found by comparing
/// the new code with the Foundation API it replaced: property lists, JSON errors, the cURL
/// description's quoting, the logging interceptor's rounding and the HTTP-date's digits.
@Suite("Foundation replacements: regressions")
struct FoundationEssentialsRegressionTests {
    static let request = Request(url: URL(string: "http://a.test/x")!)

    static func response(_ body: Data, type: String) -> Response {
        Response(status: 200, headers: ["Content-Type": type], body: body, request: request)
    }

    /// An XML property list of `depth` nested arrays.
    static func nestedXMLPlist(depth: Int) -> Data {
        Data(
            (#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"#
                + String(repeating: "<array>", count: depth)
                + String(repeating: "</array>", count: depth) + "</plist>").utf8)
    }

    /// A binary property list of `depth` arrays, each holding the next and the innermost empty; or,
    /// when `cyclic`, one array that holds itself.
    static func nestedBinaryPlist(depth: Int, cyclic: Bool = false) -> Data {
        // Byte by byte into one reserved buffer: tests build 100,000 levels, and a small array per
        // level cost more in a debug build than parsing them.
        var body = Array("bplist00".utf8)
        body.reserveCapacity(8 + depth * 9 + 32)
        func append(_ value: Int, bytes: Int) {
            for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) {
                body.append(UInt8(truncatingIfNeeded: value >> shift))
            }
        }
        var offsets: [Int] = []
        offsets.reserveCapacity(depth)
        for index in 0..<depth {
            offsets.append(body.count)
            if !cyclic && index == depth - 1 {
                body.append(0xA0)
            } else {
                body.append(0xA1)
                append(cyclic ? index : index + 1, bytes: 4)
            }
        }
        let table = body.count
        for offset in offsets { append(offset, bytes: 4) }
        body += [0, 0, 0, 0, 0, 0, 4, 4]
        append(depth, bytes: 8)
        append(0, bytes: 8)
        append(table, bytes: 8)
        return Data(body)
    }

    /// The depth of nested single-element arrays.
    static func depth(of object: PropertyListObject) -> Int {
        var depth = 0
        var current = object
        while case .array(let elements) = current {
            depth += 1
            guard let first = elements.first else { break }
            current = first
        }
        return depth
    }

    func plist(_ body: Data) throws(SluiceError) -> PropertyListObject {
        try PropertyListResponseSerializer().serialize(Self.response(body, type: "application/x-plist"))
    }

    @Test func aDeeplyNestedPropertyListFailsInsteadOfCrashing() throws {
        // Before: 10,000 nested arrays (150 KB) overflowed the stack in PropertyListDecoder's XML
        // parser, and 5,000 in PropertyListObject's recursive decoding: the process crashed.
        let limit = PropertyListObject.maximumDepth
        #expect(Self.depth(of: try plist(Self.nestedXMLPlist(depth: limit))) == limit)
        #expect(Self.depth(of: try plist(Self.nestedBinaryPlist(depth: limit))) == limit)
        for body in [
            Self.nestedXMLPlist(depth: limit + 1), Self.nestedXMLPlist(depth: 100_000),
            Self.nestedBinaryPlist(depth: limit + 1), Self.nestedBinaryPlist(depth: 100_000),
            Self.nestedBinaryPlist(depth: 1, cyclic: true),
        ] {
            #expect(throws: SluiceError.self) { try plist(body) }
        }
        do {
            _ = try plist(Self.nestedXMLPlist(depth: 100_000))
        } catch {
            #expect(error.message.hasPrefix("malformed property list: elements nested more than 512 deep; "))
        }
    }

    @Test func propertyListsKeepTheirKindsAndMalformedValuesNameTheirOwnError() throws {
        let xml = { (body: String) in
            Data((#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"# + body + "</plist>").utf8)
        }
        let mixed = try plist(
            xml(
                "<dict><key>a</key><array><integer>1</integer><real>2.5</real><true/><string>s</string>"
                    + "<data>AAE=</data><date>2020-01-01T00:00:00Z</date><array/><dict/></array></dict>"))
        #expect(
            mixed
                == .dictionary([
                    "a": .array([
                        .integer(1), .real(2.5), .bool(true), .string("s"), .data(Data([0, 1])),
                        .date(Date(timeIntervalSince1970: 1_577_836_800)), .array([]), .dictionary([:]),
                    ])
                ]))
        struct Kinds: Encodable {
            let integers: [Int]
            let reals: [String: Double]
            let data: Data
            let date: Date
            let flag: Bool
            let text: String
        }
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        let binary = try encoder.encode(
            Kinds(
                integers: [1, -2], reals: ["r": 2.5], data: Data([7]), date: Date(timeIntervalSince1970: 0),
                flag: false,
                text: "t"))
        #expect(
            try plist(binary)
                == .dictionary([
                    "integers": .array([.integer(1), .integer(-2)]), "reals": .dictionary(["r": .real(2.5)]),
                    "data": .data(Data([7])), "date": .date(Date(timeIntervalSince1970: 0)), "flag": .bool(false),
                    "text": .string("t"),
                ]))
        // Before: "Expected to decode Dictionary<String, Any> but found an integer instead".
        do {
            _ = try plist(xml("<array><integer>abc</integer></array>"))
            Issue.record("a malformed integer was accepted")
        } catch {
            #expect(error.message.hasPrefix(#"malformed property list: <integer> "abc" is not an integer; "#))
        }
    }

    @Test(arguments: [
        ("[01]", "leading zero in a number"),
        ("[\"\u{7}\"]", "unescaped control character U+0007 in a string"),
        ("{\"a\": [1, 1e400]}", "the number 1e400 does not fit in a Double"),
        ("[1.]", "']' where a digit was expected after the decimal point"),
    ])
    func malformedJSONNamesItsOwnErrorNotATypeMismatch(_ body: String, _ expectedCause: String) {
        // Before: every one of these failed with "Expected to decode Dictionary<String, Any> but found
        // an array instead", the last kind JSONValue tried, whatever was really wrong.
        do {
            _ = try JSONResponseSerializer().serialize(Self.response(Data(body.utf8), type: "application/json"))
            Issue.record("malformed JSON was accepted")
        } catch {
            let cause = error.underlyingError as? JSONSyntaxError
            #expect(cause?.message.hasPrefix(expectedCause) == true, "\(String(describing: error.underlyingError))")
            #expect(error.message.contains(expectedCause))
        }
    }

    @Test func wellFormedJSONStillDecodesEveryKind() throws {
        let body = #"{"n":null,"b":false,"x":1.5,"s":"é","a":[1,[true],{}],"o":{"k":"v"}}"#
        let value = try JSONResponseSerializer(removingNullValues: false).serialize(
            Self.response(Data(body.utf8), type: "application/json"))
        #expect(
            value
                == [
                    "n": nil, "b": false, "x": 1.5, "s": "é", "a": [1, [true], [:]], "o": ["k": "v"],
                ])
    }

    @Test func aQuoteFollowedByACombiningMarkIsStillEscapedForTheShell() {
        // Swift splits a String by Characters, and `'` + U+0301 is one Character that is not `'`: the
        // quote was left as it was and ended the shell's quoting, so the rest ran as commands.
        let hostile = "'\u{301}; touch /tmp/pwned; echo '"
        let quoted = CurlShell.quoted(hostile)
        #expect(quoted == "''\\''\u{301}; touch /tmp/pwned; echo '\\'''")
        // Read back as a POSIX shell reads a word, the quoting gives the text back, as one word.
        for text in [hostile, "it's", "'", "''\u{301}'", "a\u{301}'b", "plain"] {
            #expect(Self.shellWord(CurlShell.quoted(text)) == Array(text.utf8), "\(text.debugDescription)")
        }
    }

    /// The bytes of the one shell word `text` is, by the POSIX rules for `'…'` and `\`, or nil when
    /// it is not a single word (an unquoted blank, `;` or other operator).
    static func shellWord(_ text: String) -> [UInt8]? {
        let operators = Array(" \t\n;&|<>()$`\"".utf8)
        var word: [UInt8] = []
        var inQuotes = false
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            if inQuotes {
                if byte == UInt8(ascii: "'") { inQuotes = false } else { word.append(byte) }
            } else if byte == UInt8(ascii: "'") {
                inQuotes = true
            } else if byte == UInt8(ascii: "\\") {
                guard let next = bytes.next() else { return nil }
                word.append(next)
            } else if operators.contains(byte) {
                return nil
            } else {
                word.append(byte)
            }
        }
        return inQuotes ? nil : word
    }

    @Test func sizesRoundAsPercentPointOneFDid() {
        // `%.1f` rounds a tie to even: 1280 bytes are 1.25 KB, shown as 1.2.
        for bytes in Array(1024..<8192) + [1_310_720, 1_048_576 + 262_144 / 2, 5 << 20] {
            let expected =
                bytes < 1 << 20
                ? String(format: "%.1f KB", Double(bytes) / 1024) : String(format: "%.1f MB", Double(bytes) / 1_048_576)
            #expect(LoggingInterceptor.size(Int64(bytes)) == expected)
        }
        for value in [0.25, 1.25, 2.5, 3.75, 0.375] {
            #expect(LoggingInterceptor.oneDecimal(value) == String(format: "%.1f", value), "\(value)")
        }
    }

    @Test(arguments: [
        "Sun, +6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov +994 08:49:37 GMT", "Sun, 06 Nov -994 08:49:37 GMT",
        "Sun, 06 Nov 1994 +8:49:37 GMT", "Sun, 06 Nov 1994 -0:49:37 GMT", "Sun, 06 Nov 1994 08:+9:37 GMT",
        "Sunday, +6-Nov-94 08:49:37 GMT", "Sunday, 06-Nov-+4 08:49:37 GMT", "Sun Nov +6 08:49:37 1994",
        "Sun Nov  6 08:49:37 +994",
    ])
    func httpDateFieldsAreDigitsOnly(_ text: String) {
        // `Int("+6")` is 6: a sign slipped through every numeric field.
        #expect(HTTPDate.parse(text, now: Date(timeIntervalSince1970: 1_700_000_000)) == nil)
    }

    @Test func anXMLDeclarationWithAValidVersionAndStandaloneStillReads() throws {
        for declaration in [
            #"<?xml version="1.0" standalone="no"?>"#, #"<?xml version='1.1'?>"#,
            #"<?xml version="1.0" encoding="UTF-8" standalone='yes' ?>"#,
        ] {
            #expect(try XMLDocumentParser.parse(Array((declaration + "<a/>").utf8)) == XMLValue(name: "a"))
        }
    }
}
