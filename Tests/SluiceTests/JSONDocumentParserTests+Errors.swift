import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

extension JSONDocumentParserTests {
    /// Malformed documents, each with where the parser stops and what it says.
    static let malformed: [(document: String, line: Int, column: Int, message: String)] = [
        ("", 1, 1, "the end of the document where a value was expected"),
        ("  \n ", 2, 2, "the end of the document where a value was expected"),
        ("[1,]", 1, 4, "']' where a value was expected"),
        ("[1 2]", 1, 4, "'2' where ',' or ']' was expected"),
        ("[1", 1, 3, "the end of the document where ',' or ']' was expected"),
        (#"{"a" 1}"#, 1, 6, "'1' where ':' was expected after an object key"),
        (#"{"a":1,}"#, 1, 8, "'}' where an object key (a string) was expected"),
        ("{a:1}", 1, 2, "'a' where an object key (a string) was expected"),
        (#"{"a":1 "b":2}"#, 1, 8, #"'"' where ',' or '}' was expected"#),
        ("[1] x", 1, 5, "'x' after the JSON value"),
        ("{} {}", 1, 4, "'{' after the JSON value"),
        ("nul", 1, 1, "invalid literal, expected null"),
        ("True", 1, 1, "'T' where a value was expected"),
        ("'a'", 1, 1, "''' where a value was expected"),
        ("NaN", 1, 1, "'N' where a value was expected"),
        ("-", 1, 2, "the end of the document where a digit was expected in a number"),
        ("+1", 1, 1, "'+' where a value was expected"),
        (".5", 1, 1, "'.' where a value was expected"),
        ("012", 1, 1, "leading zero in a number"),
        ("-01", 1, 2, "leading zero in a number"),
        ("1.e5", 1, 3, "'e' where a digit was expected after the decimal point"),
        ("1e", 1, 3, "the end of the document where a digit was expected after the exponent"),
        ("1e+", 1, 4, "the end of the document where a digit was expected after the exponent"),
        ("-1e999", 1, 1, "the number -1e999 does not fit in a Double"),
        ("0x10", 1, 2, "'x' after the JSON value"),
        (#""abc"#, 1, 1, "end of the document inside a string opened here"),
        ("\"a\nb\"", 1, 3, "unescaped control character U+000A in a string (write it as \\u000A)"),
        ("\"tab\there\"", 1, 5, "unescaped control character U+0009 in a string (write it as \\u0009)"),
        (#""\x""#, 1, 2, "invalid escape: \\ followed by 'x' (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)"),
        (#""\u12"#, 1, 2, "a \\u escape needs four hex digits, found the end of the document"),
        (#""\u12G4""#, 1, 2, "a \\u escape needs four hex digits, found 'G'"),
        (#""\uD83D""#, 1, 2, "\\uD83D is a high surrogate without the low one after it"),
        (#""\uD83D\u0041""#, 1, 8, "\\uD83D is a high surrogate followed by \\u0041, not a low one"),
        (#""\uDE00""#, 1, 2, "\\uDE00 is a low surrogate without the high one before it"),
        ("[\n  1,\r\n  @]", 3, 3, "'@' where a value was expected"),
        ("[\"é\", ü]", 1, 7, "'ü' (U+00FC) where a value was expected"),
        ("[\u{7}]", 1, 2, "U+0007 where a value was expected"),
    ]

    @Test func malformedDocumentsSayWhereAndWhat() {
        for (document, line, column, message) in Self.malformed {
            #expect(
                throws: JSONSyntaxError(line: line, column: column, message: message), "\(document.debugDescription)"
            ) {
                try parse(document)
            }
        }
    }

    @Test func invalidUTF8IsRefusedAtItsByte() {
        #expect(throws: JSONSyntaxError(line: 1, column: 4, message: "a string that is not valid UTF-8 (byte 0xFF)")) {
            try JSONDocumentParser.parse(Array(#"["é"#.utf8) + [0xFF] + Array(#""]"#.utf8))
        }
        #expect(throws: JSONSyntaxError(line: 1, column: 5, message: "a string that is not valid UTF-8 (byte 0xC3)")) {
            try JSONDocumentParser.parse(Array(#"["\n"#.utf8) + [0xC3] + Array(#"\n"]"#.utf8))
        }
        #expect(
            throws: JSONSyntaxError(
                line: 1, column: 2, message: "byte 0xFF, which is not UTF-8 where a value was expected")
        ) {
            try JSONDocumentParser.parse([UInt8(ascii: "["), 0xFF, UInt8(ascii: "]")])
        }
    }

    @Test func mutatedDocumentsParseAsJSONDecoderDoesOrFailCleanly() {
        let seeds = [
            #"{"a": [1, -2.5e3, true, false, null], "b": {"c": "d\u00e9\n"}, "e": ""}"#,
            #"[0, "😀", {"k": [[]]}, 1e-5, "\\/"]"#,
        ].map { Array($0.utf8) }
        let tokens =
            [
                "[", "]", "{", "}", ",", ":", "\"", "\\", "\\u", "d83d", "-", "0", "1", ".", "e", "+", " ", "\n", "t",
                "null",
            ]
            .map { Array($0.utf8) } + [[0xFF], [0x00], [0xC3], [0xF0, 0x9F]]
        var random = SplitMix64(state: 0x15_0A)
        var agreed = 0
        for _ in 0..<3_000 {
            var document = seeds.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 1...3, using: &random) where !document.isEmpty {
                let index = Int.random(in: 0..<document.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: document[index] = UInt8.random(in: 0...255, using: &random)
                case 1: document.remove(at: index)
                default: document.insert(contentsOf: tokens.randomElement(using: &random)!, at: index)
                }
            }
            let ours: JSONValue?
            do {
                ours = try JSONDocumentParser.parse(document)
            } catch {
                #expect(error.line >= 1 && error.column >= 1 && !error.message.isEmpty)
                ours = nil
            }
            // Where JSONDecoder reads the document too, both read the same value.
            if let ours, let theirs = try? JSONDecoder().decode(JSONValue.self, from: Data(document)) {
                #expect(ours == theirs, "\(String(decoding: document, as: UTF8.self).debugDescription)")
                agreed += 1
            }
        }
        #expect(agreed > 100)
    }
}
