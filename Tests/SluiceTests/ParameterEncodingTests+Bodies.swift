import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import Testing

/// JSON, property-list and `Encodable` parameters.
extension ParameterEncodingTests {
    // MARK: JSON

    @Test func jsonIsCompactWithSortedKeys() throws {
        let parameters: Parameters = [
            "b": 1, "a": ["z": [1, 2.5, "s", nil], "x": true], "s": .set(["y", "x"]), "e": [], "o": [:],
        ]
        let request = try JSONEncoding.default.encode(Request(method: .post, url: Self.base), with: parameters)
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.body.encodedText == #"{"a":{"x":true,"z":[1,2.5,"s",null]},"b":1,"e":[],"o":{},"s":["x","y"]}"#)
        #expect(request.url == Self.base)
    }

    @Test func jsonStringsAreEscaped() throws {
        let text = "quote\" back\\ nl\n tab\t cr\r ctl\u{1} bs\u{8} ff\u{C} slash/ 👍🏽 e\u{301} 中"
        let request = try JSONEncoding.default.encode(
            Request(method: .post, url: Self.base), with: [text: .string(text)])
        let escaped = #""quote\" back\\ nl\n tab\t cr\r ctl\u0001 bs\b ff\f slash/ 👍🏽 e\#u{301} 中""#
        #expect(request.body.encodedText == "{\(escaped):\(escaped)}")
        let decoded =
            try JSONSerialization.jsonObject(with: try #require(request.body.encodedBytes)) as? [String: String]
        #expect(decoded == [text: text])
    }

    @Test func jsonPrettyPrinted() throws {
        let parameters: Parameters = ["b": 1, "a": ["x": true, "z": [1, 2]], "e": [], "o": [:]]
        let request = try JSONEncoding.prettyPrinted.encode(Request(method: .post, url: Self.base), with: parameters)
        let expected = """
            {
              "a" : {
                "x" : true,
                "z" : [
                  1,
                  2
                ]
              },
              "b" : 1,
              "e" : [],
              "o" : {}
            }
            """
        #expect(request.body.encodedText == expected)
    }

    @Test func jsonKeepsAnExistingContentType() throws {
        let request = Request(method: .post, url: Self.base, headers: ["Content-Type": "application/vnd.api+json"])
        let encoded = try JSONEncoding.default.encode(request, with: ["a": 1])
        #expect(encoded.headers["Content-Type"] == "application/vnd.api+json")
        #expect(encoded.body.encodedText == #"{"a":1}"#)
    }

    @Test func jsonRootArraysAndScalars() throws {
        let request = Request(method: .post, url: Self.base)
        let array = try JSONEncoding.default.encode(request, withJSONArray: [1, "a", ["k": nil], [true]])
        #expect(array.body.encodedText == #"[1,"a",{"k":null},[true]]"#)
        #expect(array.headers["Content-Type"] == "application/json")
        let root = try JSONEncoding.default.encode(request, withRoot: [["id": 1], ["id": 2]])
        #expect(root.body.encodedText == #"[{"id":1},{"id":2}]"#)
        #expect(try JSONEncoding.default.encode(request, withRoot: "x").body.encodedText == #""x""#)
        #expect(try JSONEncoding.default.encode(request, withJSONArray: []).body.encodedText == "[]")
    }

    @Test func jsonRefusesNaNAndInfinityWithTheirKeyPath() {
        let request = Request(method: .post, url: Self.base)
        let nan = #expect(throws: SluiceError.self) {
            try JSONEncoding.default.encode(request, with: ["user": ["scores": [1, 2, .double(.nan)]], "a": 1])
        }
        #expect(nan?.code == .invalidParameters)
        #expect(nan?.keyPath == "user.scores[2]")
        #expect(nan?.isInvalidRequest == true)
        #expect(nan?.message.contains("user.scores[2]") == true)
        let infinity = #expect(throws: SluiceError.self) {
            try JSONEncoding.default.encode(request, withJSONArray: [1, ["x": .double(-.infinity)]])
        }
        #expect(infinity?.keyPath == "[1].x")
        let root = #expect(throws: SluiceError.self) {
            try JSONEncoding.default.encode(request, withRoot: .double(.infinity))
        }
        #expect(root?.keyPath == "")
        #expect(root?.message.contains("at the root") == true)
    }

    // MARK: Property lists

    struct PlistShape: Decodable, Equatable {
        var a: Int
        var b: [String]
        var c: [String: Bool]
        var e: Double
        var s: [Int]
    }

    @Test(arguments: [PropertyListEncoding.xml, .binary])
    func propertyListsRoundTrip(encoding: PropertyListEncoding) throws {
        let parameters: Parameters = ["a": 1, "b": ["x", "👍🏽"], "c": ["d": true], "e": 2.5, "s": .set([3, 1, 2])]
        let request = try encoding.encode(Request(method: .post, url: Self.base), with: parameters)
        #expect(request.headers["Content-Type"] == "application/x-plist")
        let body = try #require(request.body.encodedBytes)
        let prefix = encoding.format == .xml ? "<?xml" : "bplist00"
        #expect(body.starts(with: Data(prefix.utf8)))
        let decoded = try PropertyListDecoder().decode(PlistShape.self, from: body)
        #expect(decoded == PlistShape(a: 1, b: ["x", "👍🏽"], c: ["d": true], e: 2.5, s: [1, 2, 3]))
    }

    @Test func propertyListsRefuseNullWithItsKeyPath() {
        let error = #expect(throws: SluiceError.self) {
            try PropertyListEncoding.xml.encode(Request(method: .post, url: Self.base), with: ["a": ["b": [1, nil]]])
        }
        #expect(error?.code == .invalidParameters)
        #expect(error?.keyPath == "a.b[1]")
        #expect(error?.message.contains("null") == true)
    }

    @Test func propertyListsCarryNaNAndInfinity() throws {
        let parameters: Parameters = ["n": .double(.nan), "i": .double(-.infinity)]
        let request = try PropertyListEncoding.binary.encode(Request(method: .post, url: Self.base), with: parameters)
        let decoded = try PropertyListDecoder().decode(
            [String: Double].self, from: try #require(request.body.encodedBytes))
        #expect(decoded["n"]?.isNaN == true)
        #expect(decoded["i"] == -.infinity)
    }

    @Test func propertyListsKeepAnExistingContentType() throws {
        let request = Request(method: .post, url: Self.base, headers: ["Content-Type": "application/x-apple-plist"])
        let encoded = try PropertyListEncoding.xml.encode(request, with: ["a": 1])
        #expect(encoded.headers["Content-Type"] == "application/x-apple-plist")
    }
}
