import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// `PropertyListObject`'s `Decodable` conformance, for users who decode one with a decoder of
/// their own; and the OpenStep property lists that `propertyList()` still reads through it.
@Suite("PropertyListObject from any decoder")
struct PropertyListObjectDecodableTests {
    @Test func everyKindDecodesFromPropertyListDecoder() throws {
        struct Sample: Encodable {
            let text = "t"
            let integer = -3
            let real = 2.5
            let flag = true
            let when = Date(timeIntervalSince1970: 86_400)
            let bytes = Data([1, 2])
            let list = [[String]()]
            let table = ["k": ["v"]]
        }
        let expected = PropertyListObject.dictionary([
            "text": .string("t"), "integer": .integer(-3), "real": .real(2.5), "flag": .bool(true),
            "when": .date(Date(timeIntervalSince1970: 86_400)), "bytes": .data(Data([1, 2])),
            "list": .array([.array([])]), "table": .dictionary(["k": .array([.string("v")])]),
        ])
        let encoder = PropertyListEncoder()
        for format in [PropertyListDecoder.PropertyListFormat.xml, .binary] {
            encoder.outputFormat = format
            let body = try encoder.encode(Sample())
            #expect(try PropertyListDecoder().decode(PropertyListObject.self, from: body) == expected, "\(format)")
        }
    }

    @Test func itDecodesInsideAValueOfOneOwnTypeWithJSONDecoder() throws {
        struct Envelope: Decodable {
            let payload: PropertyListObject
        }
        let json = #"{"payload": {"a": [1, "x", true, 2.5, {"b": []}]}}"#
        let envelope = try JSONDecoder().decode(Envelope.self, from: Data(json.utf8))
        #expect(
            envelope.payload
                == .dictionary([
                    "a": .array([.integer(1), .string("x"), .bool(true), .real(2.5), .dictionary(["b": .array([])])])
                ]))
    }

    @Test func valuesNestedDeeperThan512AreRefused() throws {
        func nested(_ depth: Int) -> Data {
            Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        }
        _ = try JSONDecoder().decode(PropertyListObject.self, from: nested(512))
        // JSONDecoder reads no deeper than 512 itself, so the count starts 500 levels down.
        _ = try PropertyListObject.$nesting.withValue(500) {
            try JSONDecoder().decode(PropertyListObject.self, from: nested(12))
        }
        #expect {
            try PropertyListObject.$nesting.withValue(500) {
                try JSONDecoder().decode(PropertyListObject.self, from: nested(13))
            }
        } throws: { error in
            guard case .dataCorrupted(let context) = error as? DecodingError else { return false }
            return context.debugDescription == "Values nested more than 512 deep."
        }
    }

    @Test func anOpenStepPropertyListIsReadThroughTheDecoder() throws {
        let request = Request(url: URL(string: "http://a.test/x")!)
        func serialize(_ text: String) throws(SluiceError) -> PropertyListObject {
            try PropertyListResponseSerializer().serialize(
                Response(
                    status: 200, headers: ["Content-Type": "application/x-plist"], body: Data(text.utf8),
                    request: request))
        }
        #expect(
            try serialize(#"{ name = "Ada Lovelace"; tags = (a, b); blob = <0001>; }"#)
                == .dictionary([
                    "name": .string("Ada Lovelace"), "tags": .array([.string("a"), .string("b")]),
                    "blob": .data(Data([0, 1])),
                ]))
        do {
            _ = try serialize("{ a = ; }")
            Issue.record("a malformed OpenStep property list was read")
        } catch {
            #expect(error.message.hasPrefix("malformed property list; "))
            #expect(error.underlyingError is DecodingError)
        }
    }
}
