import Foundation
import QueryStringDecoding
import Sluice
import SluiceFormats
import SluiceReachability
import Testing

/// A value with one property of every kind `URLEncodedFormEncoder` handles.
struct EncodableProfile: Codable, Equatable, Sendable {
    enum Role: String, Codable, Sendable { case admin }
    struct Address: Codable, Equatable, Sendable {
        var city: String
        var zip: String?
    }
    var name = "Ada Lovelace"
    var age = 36
    var height = 1.65
    var ratio: Float = 0.1
    var active = true
    var nickname: String? = nil
    var role = Role.admin
    var tags = ["math", "poetry"]
    var address = Address(city: "London", zip: nil)
    var born = Date(timeIntervalSince1970: 0)
    var avatar = Data([0, 1, 2, 250])
    var homepage = URL(string: "https://example.com/a?b=c")!
    var big = UInt64.max
    var counts = ["b": 2, "a": 1]
    var small: Int8 = -8
}

/// Writes an explicit null and a nested unkeyed container by hand.
struct HandWritten: Encodable {
    enum Keys: String, CodingKey {
        case gone
        case matrix
        case `super`
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeNil(forKey: .gone)
        var matrix = container.nestedUnkeyedContainer(forKey: .matrix)
        var row = matrix.nestedUnkeyedContainer()
        try row.encode(1)
        try row.encode(2)
        try matrix.encodeNil()
        var parent = container.superEncoder().singleValueContainer()
        try parent.encode("base")
    }
}

struct Scores: Codable {
    var scores: [Double]
}

struct ScoresHolder: Codable {
    var user: Scores
}

extension ParameterEncodingTests {
    static let profileQuery =
        "active=1&address%5Bcity%5D=London&age=36&avatar=AAEC%2Bg%3D%3D&big=18446744073709551615"
        + "&born=1970-01-01T00%3A00%3A00Z&counts%5Ba%5D=1&counts%5Bb%5D=2&height=1.65"
        + "&homepage=https%3A//example.com/a?b%3Dc&name=Ada%20Lovelace&ratio=0.1&role=admin&small=-8"
        + "&tags%5B%5D=math&tags%5B%5D=poetry"

    @Test func encodableValuesBecomeParameterTrees() throws {
        let parameters = try URLEncodedFormEncoder().parameters(from: EncodableProfile())
        let expected: Parameters = [
            "name": "Ada Lovelace", "age": 36, "height": 1.65, "ratio": 0.1, "active": true, "role": "admin",
            "tags": ["math", "poetry"], "address": ["city": "London"], "born": "1970-01-01T00:00:00Z",
            "avatar": "AAEC+g==", "homepage": "https://example.com/a?b=c", "big": "18446744073709551615",
            "counts": ["a": 1, "b": 2], "small": -8,
        ]
        #expect(parameters == expected)
        #expect(try URLEncodedFormEncoder().encode(EncodableProfile()) == Self.profileQuery)
    }

    @Test func encodableParametersMatchLiteralOnes() throws {
        let literal = try URLEncodedFormEncoder().parameters(from: EncodableProfile())
        for method: HTTPMethod in [.get, .post] {
            let request = Request(method: method, url: Self.base)
            let typed = try URLEncoding.default.encode(request, with: EncodableProfile())
            let untyped = try URLEncoding.default.encode(request, with: literal)
            #expect(typed.url == untyped.url)
            #expect(typed.body.encodedBytes == untyped.body.encodedBytes)
        }
        let get = try URLEncoding.default.encode(Request(url: Self.base), with: EncodableProfile())
        #expect(get.url.query == Self.profileQuery)
    }

    @Test func explicitNullsNestedContainersAndSuper() throws {
        let parameter = try URLEncodedFormEncoder().parameter(from: HandWritten())
        #expect(parameter == ["gone": nil, "matrix": [[1, 2], nil], "super": "base"])
        #expect(
            try URLEncodedFormEncoder(arrayEncoding: .indexInBrackets).encode(HandWritten())
                == "gone&matrix%5B0%5D%5B0%5D=1&matrix%5B0%5D%5B1%5D=2&matrix%5B1%5D&super=base")
    }

    @Test func dateAndDataStrategies() throws {
        struct Stamp: Encodable {
            var at = Date(timeIntervalSince1970: 1.5)
            var blob = Data("hi".utf8)
        }
        let seconds = URLEncodedFormEncoder(dateEncoding: .secondsSince1970)
        #expect(try seconds.parameters(from: Stamp())["at"] == 1.5)
        let millis = URLEncodedFormEncoder(dateEncoding: .millisecondsSince1970)
        #expect(try millis.parameters(from: Stamp())["at"] == 1500)
        let custom = URLEncodedFormEncoder(
            dateEncoding: .custom { _ in "then" }, dataEncoding: .custom { .int($0.count) }, boolEncoding: .literal)
        #expect(try custom.parameters(from: Stamp()) == ["at": "then", "blob": 2])
        #expect(try URLEncodedFormEncoder().parameters(from: Stamp())["blob"] == "aGk=")
    }

    @Test func encodableURLParametersNeedAKeyedRoot() {
        let error = #expect(throws: SluiceError.self) {
            try URLEncoding.default.encode(Request(url: Self.base), with: [1, 2, 3])
        }
        #expect(error?.code == .invalidParameters)
        #expect(error?.message.contains("keyed container") == true)
    }

    @Test func encodableNaNIsRefusedWithItsCodingPath() {
        let value = ScoresHolder(user: Scores(scores: [1, 2, .nan]))
        let form = #expect(throws: SluiceError.self) {
            try URLEncoding.default.encode(Request(url: Self.base), with: value)
        }
        #expect(form?.code == .invalidParameters)
        #expect(form?.keyPath == "user.scores[2]")
        let json = #expect(throws: SluiceError.self) {
            try JSONEncoding.default.encode(Request(method: .post, url: Self.base), with: value)
        }
        #expect(json?.code == .invalidParameters)
        #expect(json?.keyPath == "user.scores[2]")
        #expect(json?.underlyingError is EncodingError)
    }

    @Test func encodableJSONRoundTrips() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let request = try JSONEncoding.default.encode(
            Request(method: .post, url: Self.base), with: EncodableProfile(), encoder: encoder)
        #expect(request.headers["Content-Type"] == "application/json")
        let body = try #require(request.body.encodedBytes)
        #expect(try JSONDecoder().decode(EncodableProfile.self, from: body) == EncodableProfile())
        // A root array is just another Encodable value.
        let array = try JSONEncoding.default.encode(Request(method: .post, url: Self.base), with: [1, 2])
        #expect(array.body.encodedText == "[1,2]")
    }

    @Test func encodableQueriesRoundTripThroughTheDecoder() throws {
        let query = try URLEncodedFormEncoder().encode(EncodableProfile())
        let decoded = QueryDecoder.decode(query, arrayEncoding: .brackets)
        let expected = try URLEncodedFormEncoder().parameter(from: EncodableProfile())
        #expect(decoded == QueryDecoder.expectedDecoding(of: expected, boolEncoding: .numeric))
    }
}
