import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// The query escaping and the query appending work on bytes; they must give what working on
/// characters gave, for any text.
@Suite("Query escaping and appending on bytes")
struct ByteEscapingTests {
    private static let samples: [String] = {
        var samples = [
            "", "plain", "a b", "a+b", "café", "cafe\u{301}", "e\u{301}\u{301}x", "\r\n", "a\r\nb", "\n\r",
            "👍🏽", "👩‍👩‍👧", "🇫🇷x", "&=?/#[]@!$'()*,;:", "~._-", "%41", "\u{0}", "\u{7F}", "ß", "\u{212A}",
            "a\u{301}?", "?\u{301}", "/\u{20DD}", "日本語", "\u{FEFF}x", "x\u{200B}y",
        ]
        samples.append(String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self))
        for scalar in [0x41, 0x300, 0x1F600, 0xE9, 0x20, 0x2F, 0x3F, 0x0D, 0x0A] {
            for combining in [0x301, 0x20DD, 0x200D, 0xFE0F] {
                samples.append(String(String.UnicodeScalarView([Unicode.Scalar(scalar)!, Unicode.Scalar(combining)!])))
            }
        }
        return samples
    }()

    @Test func escapingBytesGivesWhatEscapingCharactersGave() {
        for sample in Self.samples {
            for text in [sample, sample + sample, "k" + sample + "=v"] {
                #expect(
                    PercentEscaping.escapeQueryComponent(text) == OldTextCode.escapeQueryComponent(text),
                    "\(text.debugDescription)")
                var appended: [UInt8] = Array("x".utf8)
                PercentEscaping.appendEscaped(text, to: &appended)
                #expect(String(decoding: appended, as: UTF8.self) == "x" + OldTextCode.escapeQueryComponent(text))
            }
        }
    }

    @Test func aQueryStringIsWhatEscapingEachPairAndJoiningGave() {
        let serializer = QueryStringSerializer(arrayEncoding: .brackets, boolEncoding: .numeric)
        let parameters: [Parameters] = [
            [:], ["": .null], ["": .null, "b": "1"], ["": "", "a": .null, "z": "x y"], ["a": [.null, "", "é"]],
            ["k": ["": ["": .null]]], ["a&b": "c=d", "\r\n": "\r\n"],
        ]
        for parameters in parameters + Self.samples.map({ ["k" + $0: .string($0), $0: .null] }) {
            let pairs = serializer.pairs(from: parameters)
            #expect(serializer.string(from: parameters) == OldTextCode.queryString(pairs), "\(parameters)")
        }
    }

    @Test func appendingAQueryOnBytesGivesWhatCharactersGave() throws {
        let urls = [
            "http://a.test/", "http://a.test/p", "http://a.test/p?", "http://a.test/p?x=1", "http://a.test/p?x=1&",
            "http://a.test/p#f", "http://a.test/p?x#f", "http://a.test/p?#f", "http://a.test/p?x=1&#f?g",
            "http://a.test/p#f?x", "http://a.test/%C3%A9?q=%26", "http://user@a.test:8080/p?a=b&c#",
        ]
        var checked = 0
        for text in urls {
            for query in ["y=2", "", "a%20b=%E2%9C%93", "z"] {
                let bytes = try #require(URLEncoding.asciiAppending(query, to: text))
                #expect(bytes == URLEncoding.characterAppending(query, to: text), "\(text) + \(query)")
                checked += 1
            }
        }
        #expect(
            URLEncoding.asciiAppending("y=2", to: "http://a.test/é") == nil, "text that is not ASCII goes by characters"
        )
        #expect(checked == urls.count * 4)
    }
}
