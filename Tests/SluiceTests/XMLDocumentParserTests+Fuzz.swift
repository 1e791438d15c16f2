import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// A small deterministic generator (SplitMix64), so a failing input can be found again.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension XMLDocumentParserTests {
    /// Well-formed documents that the mutations start from.
    static let fuzzSeeds = [
        #"<?xml version="1.0" encoding="utf-8"?><feed xmlns:a="u"><t type="x">N &amp; v</t><a:e id="1"><![CDATA[<b>]]></a:e></feed>"#,
        #"<a x="&lt;&#38;&#x1F600;" y='&quot;'>&lt;b&gt; &#233; <b/>t<!-- c --><?p d?></a>"#,
        "<!DOCTYPE r [<!ENTITY e \"v\"><!ATTLIST r a CDATA \"]>\">]>\n<r>\r\n\t<c>é😀</c>\r</r>",
        "\u{FEFF}<?xml version=\"1.0\" standalone=\"no\"?><a v=\"a\tb\r\nc\">x&#13;y</a>",
    ].map { Array($0.utf8) }

    /// Pieces of markup, and bytes that are not valid UTF-8 or not allowed in XML.
    static let fuzzTokens: [[UInt8]] =
        [
            "<", ">", "/", "a", "=", "\"", "'", "&", ";", "#", "x", "!", "-", "[", "]", "?", " ", "\r", "<!--", "-->",
            "]]>", "<![CDATA[", "<?", "?>", "<a>", "</a>", "<!DOCTYPE a [", "<!ENTITY", "%", "&#x", "&amp;", "é",
        ].map { Array($0.utf8) } + [
            [0xFF], [0x00], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBE], [0x01],
        ]

    /// Parses `document` and checks that it either gives a tree or fails with a position in it.
    func expectParsesOrFailsCleanly(_ document: [UInt8]) {
        do throws(XMLSyntaxError) {
            _ = try XMLDocumentParser.parse(document)
        } catch {
            #expect(error.line >= 1 && error.column >= 1, "\(document)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test func mutatedDocumentsParseOrFailWithoutCrashing() {
        var random = SplitMix64(state: 0x5EED)
        for _ in 0..<4_000 {
            var document = Self.fuzzSeeds.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 1...4, using: &random) where !document.isEmpty {
                let index = Int.random(in: 0..<document.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: document[index] = UInt8.random(in: 0...255, using: &random)
                case 1: document.remove(at: index)
                case 2: document.insert(contentsOf: Self.fuzzTokens.randomElement(using: &random)!, at: index)
                default:
                    let end = min(document.count, index + Int.random(in: 1...8, using: &random))
                    document.insert(contentsOf: document[index..<end], at: index)
                }
            }
            expectParsesOrFailsCleanly(document)
        }
    }

    @Test func randomMarkupAndRandomBytesParseOrFailWithoutCrashing() {
        var random = SplitMix64(state: 0xB17E5)
        for _ in 0..<4_000 {
            var document = Array("<r>".utf8)
            for _ in 0..<Int.random(in: 0..<30, using: &random) {
                document += Self.fuzzTokens.randomElement(using: &random)!
            }
            expectParsesOrFailsCleanly(document)
            expectParsesOrFailsCleanly(
                (0..<Int.random(in: 0..<48, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        }
    }
}
