import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// Media ranges read from ASCII bytes must be the ranges `MediaRange(_:)` reads, character by
/// character, from the same text.
@Suite("Media ranges read from ASCII bytes")
struct MediaRangeASCIITests {
    private static let elements = [
        "application/json", "Application/JSON", "*/*", "*", " * ", "text/*", "*/json", "text/plain",
        "application/vnd.api+json", "application/problem+JSON", "application", "application/", "/json",
        "application//json", "a/b/c", "", " ", "\t", "text /plain", "text/ plain", "te xt/plain",
        "text/pl@in", "text/pla(in", "!#$%&'*+-.^_`|~/x", "TEXT/HTML", "ap\u{e9}/json", "\u{212A}/json",
        "text/plain\u{301}", "text/plain\r\n",
    ]

    private static let separators = [",", ", ", " ,\t", ",,"]

    private static let parameters = [
        "", ";q=0.5", "; charset=utf-8", ";q=0", ";x=\"a,b;c\"", "\"", "\\", ";", ";\u{301}",
    ]

    /// Every Accept header made of one to three elements, with a separator and parameters.
    private static var headers: [String] {
        var headers: [String] = []
        for first in elements {
            for parameter in parameters { headers.append(first + parameter) }
            for separator in separators {
                for second in elements.prefix(12) {
                    headers.append(first + separator + second)
                    headers.append(first + separator + second + separator + "*/*")
                }
            }
        }
        return headers
    }

    @Test func anAcceptListReadsAsCharacterByCharacter() {
        var fast = 0
        for header in Self.headers {
            let ranges = MediaRange.asciiList(header)
            if let ranges {
                fast += 1
                #expect(ranges == OldTextCode.mediaRangeList(header), "\(header.debugDescription)")
            } else {
                let plain = header.utf8.allSatisfy {
                    $0 < 0x80 && $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
                }
                #expect(!plain, "\(header.debugDescription) should have been read from its bytes")
            }
            #expect(MediaRange.list(header) == OldTextCode.mediaRangeList(header), "\(header.debugDescription)")
        }
        #expect(fast > 1000)
    }

    @Test func aContentTypeReadsAsCharacterByCharacter() {
        var fast = 0
        for element in Self.elements {
            for parameter in Self.parameters + ["; charset=\"a;b\"", "\"x\"; y", "a\\/b; c"] {
                let header = element + parameter
                guard let range = MediaRange.asciiContentType(header) else {
                    let readable =
                        header.utf8.allSatisfy { $0 < 0x80 }
                        && !header.prefix { $0 != ";" }.contains { $0 == "\"" || $0 == "\\" }
                    if readable { #expect(OldTextCode.mediaRange(header[...]) == nil, "\(header.debugDescription)") }
                    continue
                }
                fast += 1
                let slow = OldTextCode.mediaRange(header[...])
                #expect(slow?.type == range.type && slow?.subtype == range.subtype, "\(header.debugDescription)")
            }
        }
        #expect(fast > 50)
    }

    @Test func splittingBytesFindsThePartsThatSplittingCharactersFinds() {
        let texts = [
            "a,b", "a;b", "\"a,b\",c", "\"a\\\",b\",c", "a\\,b", "\"unterminated,a", ",,", "", ",", "a\r\n,b",
            "x=\"1;2\";y", "\\\"a,b\"", "\"a\"\"b,c\",d",
        ]
        var checked = 0
        for text in texts + Self.headers {
            for separator in [",", ";"] as [Character] {
                guard let bytes = MediaRange.splitASCII(text[...], at: separator.asciiValue!) else {
                    #expect(text.utf8.contains { $0 >= 0x80 })
                    continue
                }
                #expect(bytes == MediaRange.splitCharacters(text[...], at: separator), "\(text.debugDescription)")
                checked += 1
            }
        }
        #expect(checked > 2000)
    }

    @Test func validationStillRefusesAndExplains() throws {
        let ranges = MediaRange.list("application/json, text/*;q=0")
        #expect(ranges.map(\.name) == ["application/json", "text/*"])
        #expect(
            MediaRange.isAcceptable(
                try #require(MediaRange.asciiContentType("application/JSON; charset=utf-8")), in: ranges))
        #expect(!MediaRange.isAcceptable(try #require(MediaRange.asciiContentType("text/plain")), in: ranges))
    }
}
