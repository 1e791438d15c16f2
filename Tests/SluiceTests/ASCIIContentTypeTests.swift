import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// The byte-level Content-Type check must accept exactly what `MediaType` accepts for ASCII
/// headers, and never accept what it refuses for any header.
@Suite("ASCII Content-Type fast path")
struct ASCIIContentTypeTests {
    private static let patterns: [[String]] = [
        JSONContentTypes.acceptable, ["*/*"], ["text/*"], ["application/XML", "*/*+Xml"], ["/*"], ["*/*+"],
        ["application/json"], ["Application/JSON;charset=utf-8"], ["k\u{212A}/json"], ["text/plain", "image/*"],
    ]

    private static let essences = [
        "application/json", "Application/JSON", "text/json", "TEXT/JavaScript", "application/problem+json",
        "application/vnd.api+JSON", "text/plain", "image/png", "application/xml", "application/atom+xml",
        "application/json+", "+json/x", "application", "application/", "/json", "application//json",
        "application/json/x", "", " ", "*/*", "text/*", "application/jsonx", "application /json",
        "application/ json", "ap\u{e9}/json", "application/js\u{f3}n", "\u{212A}/json", "k/json",
    ]

    private static let wrappings: [@Sendable (String) -> String] = [
        { $0 }, { " \($0)" }, { "\t\($0) \t" }, { "\($0); charset=utf-8" }, { "\($0) ;q=1;x=\"a;b\"" },
        { "\($0);" }, { ";\($0)" }, { "\($0)\u{301}; charset=utf-8" }, { "\($0);\u{301}" }, { "\u{2003}\($0)" },
        { "\($0)\u{200B}" },
    ]

    /// What `Serialization.checkContentType` decided before the fast path: `MediaType`'s verdict.
    private static func slowAccepts(_ header: String, _ patterns: [String]) -> Bool {
        guard let media = Serialization.MediaType.parseCharacters(header) else { return false }
        return patterns.contains(where: media.matches)
    }

    @Test func itAcceptsWhatMediaTypeAcceptsAndNothingElse() {
        var checked = 0
        var acceptedFast = 0
        for essence in Self.essences {
            for wrap in Self.wrappings {
                let header = wrap(essence)
                for patterns in Self.patterns {
                    let fast = Serialization.ASCIIContentType.accepts(header, anyOf: patterns)
                    let slow = Self.slowAccepts(header, patterns)
                    if fast { acceptedFast += 1 }
                    #expect(!fast || slow, "the fast path accepted \(header.debugDescription) for \(patterns)")
                    if header.utf8.allSatisfy({ $0 < 0x80 })
                        && patterns.allSatisfy({ $0.utf8.allSatisfy { $0 < 0x80 } })
                    {
                        #expect(fast == slow, "\(header.debugDescription) against \(patterns)")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked == Self.essences.count * Self.wrappings.count * Self.patterns.count)
        #expect(acceptedFast > 100, "the fast path takes the common cases")
    }

    @Test func responsesAreStillRefusedWithTheReason() throws {
        let request = try Request(method: .get, url: #require(URL(string: "http://example.com/")))
        func response(_ contentType: String) -> Response {
            Response(status: 200, headers: ["Content-Type": contentType], body: Data("{}".utf8), request: request)
        }
        #expect(throws: Never.self) {
            try Serialization.checkContentType(
                response("application/vnd.api+json; charset=utf-8"), acceptable: JSONContentTypes.acceptable)
        }
        do {
            try Serialization.checkContentType(response("text/html"), acceptable: JSONContentTypes.acceptable)
            Issue.record("text/html was accepted as JSON")
        } catch {
            #expect(error.code == .serializationFailed)
            #expect(error.message.contains("unacceptable content-type: text/html"), "\(error.message)")
        }
        do {
            try Serialization.checkContentType(response("json"), acceptable: JSONContentTypes.acceptable)
            Issue.record("a malformed content type was accepted")
        } catch {
            #expect(error.message.contains("malformed content-type"), "\(error.message)")
        }
    }
}

/// `MediaType` read from ASCII bytes must equal `MediaType` read character by character.
@Suite("MediaType read from ASCII bytes")
struct MediaTypeASCIITests {
    @Test func bytesAndCharactersReadTheSameMediaType() {
        let essences = [
            "text/plain", "Text/HTML", "application/vnd.api+json", " a/b ", "\ta/b", "a/b/c", "a/", "/b", "", "ab",
            "a /b", "*/*", "caf\u{e9}/x", "a/b\r\n", "\u{212A}/x",
        ]
        let parameters = [
            "", ";", "; charset=utf-8", ";charset=\"UTF-8\"", "; CHARSET = \"a\" ", "; a=1; a=2", "; =x", "; x=",
            "; x=\"", "; x=\"\"", "; x=\"a;b\"", "; novalue", "; q=\"1\";b= 2 ;", "; charset=\u{e9}",
        ]
        var read = 0
        for essence in essences {
            for parameter in parameters {
                let header = essence + parameter
                let characters = Serialization.MediaType.parseCharacters(header)
                guard let bytes = Serialization.MediaType.parseASCII(header) else {
                    #expect(header.utf8.contains { $0 >= 0x80 || $0 == 0x0D }, "\(header.debugDescription)")
                    continue
                }
                #expect(bytes == characters, "\(header.debugDescription)")
                #expect(Serialization.MediaType(header) == characters)
                read += 1
            }
        }
        #expect(read > 150)
    }
}
