import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// Sluice's own JSON parser: what it reads, checked against `JSONDecoder` where they should agree,
/// and where it deliberately reads as `JSONSerialization` did.
@Suite("JSON documents into JSONValue trees")
struct JSONDocumentParserTests {
    func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try JSONDocumentParser.parse(Array(text.utf8))
    }

    @Test func readsEveryKindAtAnyPlace() throws {
        let text = """
             { "null" : null, "t":true,"f" :false, "int": -12, "real": 3.25e2, "s": "a\\"b\\\\c\\/d\\b\\f\\n\\r\\t",
            \t"nested": [[], {}, [1, [2, {"k": ["v"]}]]], "empty": "", "unicode": "é😀\\u00e9\\ud83d\\ude00" }\r\n
            """
        #expect(
            try parse(text)
                == [
                    "null": nil, "t": true, "f": false, "int": -12, "real": 325, "s": "a\"b\\c/d\u{8}\u{c}\n\r\t",
                    "nested": [[], [:], [1, [2, ["k": ["v"]]]]], "empty": "", "unicode": "é😀é😀",
                ])
        // Any value may be the whole document, as JSONDecoder and JSONSerialization's fragments allow.
        #expect(try parse(" 42 ") == 42)
        #expect(try parse("\"x\"") == "x")
        #expect(try parse("null") == nil)
        #expect(try parse("false") == false)
    }

    @Test func numbersReadAsJSONDecoderReadsThem() throws {
        for text in [
            "0", "-0", "7", "-7", "123456789012345", "1234567890123456", "9007199254740993", "-9223372036854775808",
            "18446744073709551616", "0.1", "-0.0", "1e2", "1E+2", "1e-2", "2.5E-3", "1.7976931348623157e308",
            "4.9e-324", "123.456e-7", "0.30000000000000004",
        ] {
            let expected = try JSONDecoder().decode(Double.self, from: Data(text.utf8))
            let value = try parse(text)
            #expect(value == .number(expected), "\(text)")
            #expect(value.doubleValue?.sign == expected.sign, "\(text)")
        }
        // Too small to tell from zero: zero, as JSONSerialization read it (JSONDecoder refuses it).
        #expect(try parse("1e-400") == 0)
    }

    @Test func aRepeatedKeyKeepsItsLastValueAsJSONSerializationDid() throws {
        #expect(try parse(#"{"a": 1, "b": 2, "a": 3}"#) == ["a": 3, "b": 2])
    }

    @Test func wideEncodingsAndByteOrderMarksAreRead() throws {
        let text = #"{"name": "Zoë 😀", "n": [1]}"#
        let expected: JSONValue = ["name": "Zoë 😀", "n": [1]]
        let utf16 = Array(text.utf16)
        let utf32 = text.unicodeScalars.map(\.value)
        func bytes<T: FixedWidthInteger>(_ units: [T], bigEndian: Bool) -> [UInt8] {
            units.flatMap { unit in
                let width = T.bitWidth / 8
                return (0..<width).map { UInt8(truncatingIfNeeded: unit >> ((bigEndian ? width - 1 - $0 : $0) * 8)) }
            }
        }
        let documents: [[UInt8]] = [
            [0xEF, 0xBB, 0xBF] + Array(text.utf8),
            bytes(utf16, bigEndian: true), bytes(utf16, bigEndian: false),
            [0xFE, 0xFF] + bytes(utf16, bigEndian: true), [0xFF, 0xFE] + bytes(utf16, bigEndian: false),
            bytes(utf32, bigEndian: true), bytes(utf32, bigEndian: false),
            [0, 0, 0xFE, 0xFF] + bytes(utf32, bigEndian: true), [0xFF, 0xFE, 0, 0] + bytes(utf32, bigEndian: false),
        ]
        for document in documents {
            #expect(try JSONDocumentParser.parse(document) == expected, "\(document.prefix(6))")
        }
        // A wide document that breaks its encoding is refused as a whole.
        let loneSurrogate = bytes(Array("[\"".utf16) + [0xD800] + Array("\"]".utf16), bigEndian: false)
        #expect(throws: JSONSyntaxError.self) { try JSONDocumentParser.parse(loneSurrogate) }
        #expect(throws: JSONSyntaxError.self) {
            try JSONDocumentParser.parse(bytes(utf16, bigEndian: false).dropLast())
        }
    }

    @Test func nestingIsBoundedWithoutRecursion() throws {
        let limit = JSONDocumentParser.maximumDepth
        func nested(_ depth: Int, open: String = "[", close: String = "]") -> String {
            String(repeating: open, count: depth) + String(repeating: close, count: depth)
        }
        var value = try parse(nested(limit))
        var depth = 0
        while case .array(let elements) = value {
            depth += 1
            value = elements.first ?? .null
        }
        #expect(depth == limit)
        #expect(
            throws: JSONSyntaxError(line: 1, column: limit + 1, message: "arrays and objects nested more than 512 deep")
        ) {
            try parse(nested(limit + 1))
        }
        #expect(throws: JSONSyntaxError.self) { try parse(String(repeating: #"{"a":"#, count: 1_000_000)) }
        // The shape that took JSONDecoder seconds through JSONValue's Decodable conformance (every
        // failed kind's coding path costs the square of the depth): read in one pass here.
        let strings = Array(repeating: #""s""#, count: 5_000).joined(separator: ",")
        let hostile = String(repeating: "[", count: 500) + strings + String(repeating: "]", count: 500)
        var inner = try parse(hostile)
        for _ in 1..<500 { inner = inner[0] ?? .null }
        #expect(inner.arrayValue?.count == 5_000)
    }

    @Test func theSerializerUsesItAndReportsWhere() throws {
        let request = Request(url: URL(string: "http://a.test/x")!)
        let response = Response(
            status: 200, headers: ["Content-Type": "application/json"], body: Data("{\n  \"a\": tru\n}".utf8),
            request: request)
        do {
            _ = try JSONResponseSerializer().serialize(response)
            Issue.record("malformed JSON was accepted")
        } catch {
            #expect(error.code == .serializationFailed)
            #expect(
                error.message.hasPrefix(
                    "malformed JSON at line 2, column 8: invalid literal, expected true (application/json"),
                "\(error.message)")
        }
    }
}
