import Foundation
import PropertyBased
import QueryStringDecoding
import Sluice
import SluiceFormats
import SluiceReachability
import Testing

/// Property-based tests: random nested parameters with random Unicode text survive a round trip
/// through the query encoding and an independent decoder written here.
extension ParameterEncodingTests {
    @Test func queryRoundTripsWithIndexedArrays() async {
        await propertyCheck(count: 300, input: ParameterGen.parameters(scalarArraysOnly: false)) { sample in
            let query = URLEncoding.queryString(
                sample.parameters, arrayEncoding: .indexInBrackets, boolEncoding: sample.boolEncoding)
            let decoded = QueryDecoder.decode(query, arrayEncoding: .indexInBrackets)
            let expected = QueryDecoder.expectedDecoding(
                of: .dictionary(sample.parameters), boolEncoding: sample.boolEncoding)
            #expect(decoded == expected, "query: \(query)")
        }
    }

    @Test func queryRoundTripsWithBracketedArrays() async {
        await propertyCheck(count: 300, input: ParameterGen.parameters(scalarArraysOnly: true)) { sample in
            let query = URLEncoding.queryString(
                sample.parameters, arrayEncoding: .brackets, boolEncoding: sample.boolEncoding)
            let decoded = QueryDecoder.decode(query, arrayEncoding: .brackets)
            let expected = QueryDecoder.expectedDecoding(
                of: .dictionary(sample.parameters), boolEncoding: sample.boolEncoding)
            #expect(decoded == expected, "query: \(query)")
        }
    }

    @Test func escapingMatchesAnIndependentOracleAndStaysInTheAllowedSet() async {
        await propertyCheck(count: 500, input: ParameterGen.text(maxLength: 24)) { text in
            let query = URLEncoding.queryString([text: .string(text)])
            #expect(query == "\(QueryDecoder.escape(text))=\(QueryDecoder.escape(text))")
            #expect(query.unicodeScalars.allSatisfy { QueryDecoder.allowedInQuery.contains($0) })
            let request = try URLEncoding.default.encode(
                Request(url: URL(string: "http://h.test/p?x=1")!), with: ["k": .string(text)])
            #expect(request.url.absoluteString == "http://h.test/p?x=1&k=\(QueryDecoder.escape(text))")
        }
    }

    @Test func escapingNeverSplitsAGraphemeCluster() async {
        await propertyCheck(count: 500, input: ParameterGen.text(maxLength: 40)) { text in
            let escaped = String(URLEncoding.queryString(["k": .string(text)]).dropFirst(2))
            let decoded = try #require(escaped.removingPercentEncoding)
            #expect(decoded == text)
            #expect(Array(decoded) == Array(text))
            #expect(decoded.utf8.elementsEqual(text.utf8))
        }
    }

    @Test func jsonRoundTripsThroughJSONDecoder() async {
        await propertyCheck(count: 300, input: ParameterGen.parameters(scalarArraysOnly: false)) { sample in
            let request = try JSONEncoding.default.encode(
                Request(method: .post, url: Self.base), with: sample.parameters)
            let body = try #require(request.body.encodedBytes)
            let decoded = try JSONDecoder().decode(JSONValue.self, from: body)
            #expect(decoded.matches(.dictionary(sample.parameters)), "json: \(request.body.encodedText ?? "")")
        }
    }
}

/// Random parameters for the property tests.
enum ParameterGen {
    /// One random case: parameters and a Boolean encoding.
    struct Sample: Sendable, CustomStringConvertible {
        var parameters: Parameters
        var boolEncoding: URLEncoding.BoolEncoding
        var description: String { "\(boolEncoding) \(parameters)" }
    }

    /// Random parameters two levels deep at most; with `scalarArraysOnly`, arrays and sets hold only
    /// scalars, which is all that `key[]` can carry unambiguously.
    static func parameters(scalarArraysOnly: Bool) -> Generator<Sample, Shrink.None<Sample>> {
        Generator { rng in
            var parameters: Parameters = [:]
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                parameters[key(using: &rng)] = value(depth: 3, scalarArraysOnly: scalarArraysOnly, using: &rng)
            }
            return Sample(parameters: parameters, boolEncoding: Bool.random(using: &rng) ? .numeric : .literal)
        }
    }

    /// Random Unicode text.
    static func text(maxLength: Int) -> Generator<String, Shrink.None<String>> {
        Generator { rng in string(length: Int.random(in: 0...maxLength, using: &rng), using: &rng) }
    }

    static func value(depth: Int, scalarArraysOnly: Bool, using rng: inout some RandomNumberGenerator) -> Parameter {
        let choice = depth == 0 ? 0 : Int.random(in: 0..<10, using: &rng)
        switch choice {
        case 0..<5:
            return scalar(using: &rng)
        case 5..<7:
            let count = Int.random(in: 1...3, using: &rng)
            return .array(
                (0..<count).map { _ in
                    scalarArraysOnly
                        ? scalar(using: &rng) : value(depth: depth - 1, scalarArraysOnly: false, using: &rng)
                })
        case 7:
            let count = Int.random(in: 1...3, using: &rng)
            return .set(Set((0..<count).map { _ in setElement(using: &rng) }))
        default:
            var dictionary: [String: Parameter] = [:]
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                dictionary[key(using: &rng)] = value(
                    depth: depth - 1, scalarArraysOnly: scalarArraysOnly, using: &rng)
            }
            return .dictionary(dictionary)
        }
    }

    static func scalar(using rng: inout some RandomNumberGenerator) -> Parameter {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return .int(Int.random(in: Int.min...Int.max, using: &rng))
        case 1: return .double(double(using: &rng))
        case 2: return .bool(Bool.random(using: &rng))
        case 3: return .null
        default: return .string(string(length: Int.random(in: 0...10, using: &rng), using: &rng))
        }
    }

    static func setElement(using rng: inout some RandomNumberGenerator) -> Parameter {
        Bool.random(using: &rng)
            ? .int(Int.random(in: -100...100, using: &rng))
            : .string(string(length: Int.random(in: 0...6, using: &rng), using: &rng))
    }

    static func double(using rng: inout some RandomNumberGenerator) -> Double {
        let specials: [Double] = [0, -0.0, 0.1, 1e-7, 1e300, -2.5, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
        return Bool.random(using: &rng)
            ? specials.randomElement(using: &rng)! : Double.random(in: -1e9...1e9, using: &rng)
    }

    /// A dictionary key: non-empty, without brackets, and not all digits (which would read as an index).
    static func key(using rng: inout some RandomNumberGenerator) -> String {
        while true {
            let scalars = string(length: Int.random(in: 1...6, using: &rng), using: &rng).unicodeScalars
            let key = String(String.UnicodeScalarView(scalars.filter { $0 != "[" && $0 != "]" }))
            if !key.isEmpty, !key.isASCIIDigits { return key }
        }
    }

    /// Scalars from pools that stress escaping: ASCII delimiters, controls, Latin-1, combining marks,
    /// CJK, emoji with zero-width joiners, skin tones and flags, and anything else outside surrogates.
    static let pools: [ClosedRange<UInt32>] = [
        0x20...0x7E, 0x20...0x7E, 0x00...0x1F, 0xA0...0xFF, 0x300...0x36F, 0x4E00...0x9FFF,
        0x1F300...0x1FAFF, 0x200D...0x200D, 0x1F3FB...0x1F3FF, 0x1F1E6...0x1F1FF, 0xFE0F...0xFE0F,
        0x0...0xD7FF, 0xE000...0x10FFFF,
    ]

    static func string(length: Int, using rng: inout some RandomNumberGenerator) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            let pool = pools.randomElement(using: &rng)!
            scalars.append(Unicode.Scalar(UInt32.random(in: pool, using: &rng))!)
        }
        return String(scalars)
    }
}
