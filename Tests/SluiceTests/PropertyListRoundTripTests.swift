import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// Property lists written by Core Foundation (`PropertyListSerialization`, the writer behind
/// Apple's own files), XML and binary, read back by Sluice's parsers: random trees from a fixed
/// seed (`SplitMix64`, shared with the XML fuzz test), so that every kind, every size of integer,
/// offset and reference, long and non-ASCII strings and the objects Core Foundation shares are met
/// as a real writer lays them out.
@Suite("Property lists round-trip through Core Foundation")
struct PropertyListRoundTripTests {
    /// A random string: ASCII, markup characters, line ends, accented letters and an emoji.
    static func string(_ random: inout SplitMix64) -> String {
        let pieces = ["a", "Z", "0", " ", "<", "&", ">", "\"", "\r\n", "\n", "\t", "é", "ß", "€", "😀", "key"]
        let length = Int.random(in: 0...(Bool.random(using: &random) ? 4 : 40), using: &random)
        return (0..<length).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    /// A random value nested at most `depth` more levels, and the same value for Core Foundation.
    static func value(_ random: inout SplitMix64, depth: Int) -> (PropertyListObject, Any) {
        let kind = Int.random(in: 0..<(depth > 0 ? 9 : 7), using: &random)
        switch kind {
        case 0:
            let text = string(&random)
            return (.string(text), text)
        case 1:
            // Every width Core Foundation writes: 1, 2, 4 and 8 bytes, and negative values.
            let bits = Int.random(in: 0...63, using: &random)
            let magnitude = Int.random(in: 0...(Int.max >> (63 - bits)), using: &random)
            let integer = Bool.random(using: &random) ? magnitude : -magnitude
            return (.integer(integer), integer)
        case 2:
            let real = [0.5, -2.25, 1e300, 3, 0, .infinity, 1.0 / 3].randomElement(using: &random)!
            return (.real(real), real)
        case 3:
            let flag = Bool.random(using: &random)
            return (.bool(flag), flag)
        case 4:
            // Whole seconds: an XML property list writes no fraction.
            let date = Date(
                timeIntervalSince1970: Double(Int.random(in: -5_000_000_000...5_000_000_000, using: &random)))
            return (.date(date), date)
        case 5:
            let bytes = Data(
                (0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            return (.data(bytes), bytes)
        case 6:
            return (.string("shared"), "shared")
        case 7:
            let count = Int.random(in: 0...(Bool.random(using: &random) ? 3 : 20), using: &random)
            let elements = (0..<count).map { _ in value(&random, depth: depth - 1) }
            return (.array(elements.map(\.0)), elements.map(\.1))
        default:
            var sluice: [String: PropertyListObject] = [:]
            var foundation: [String: Any] = [:]
            for _ in 0..<Int.random(in: 0...(Bool.random(using: &random) ? 3 : 20), using: &random) {
                let key = string(&random)
                let (expected, written) = value(&random, depth: depth - 1)
                sluice[key] = expected
                foundation[key] = written
            }
            return (.dictionary(sluice), foundation)
        }
    }

    @Test func randomTreesWrittenByCoreFoundationReadAsWrittenAndCorruptedOnesFailCleanly() throws {
        var random = SplitMix64(state: 20_261_123)
        for round in 0..<100 {
            let values = (0..<8).map { _ in Self.value(&random, depth: 4) }
            for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
                let body = try PropertyListSerialization.data(
                    fromPropertyList: values.map(\.1), format: format, options: 0)
                #expect(
                    try XMLPropertyListTests.parse(data: body) == .array(values.map(\.0)), "round \(round), \(format)")
                // The same body with a few bytes changed: read or refused, never a crash or a hang.
                var corrupted = [UInt8](body)
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    corrupted[Int.random(in: corrupted.indices, using: &random)] = UInt8.random(
                        in: 0...255, using: &random)
                }
                _ = try? XMLPropertyListTests.parse(data: Data(corrupted))
            }
        }
    }

    @Test func aLargeBinaryListUsesWideOffsetsAndReferences() throws {
        // More than 65,536 objects and bytes: offsets and references of 4 bytes, lengths past 15.
        let strings = (0..<70_000).map { "string \($0)" }
        let body = try PropertyListSerialization.data(
            fromPropertyList: ["strings": strings], format: .binary, options: 0)
        #expect(
            try XMLPropertyListTests.parse(data: body) == .dictionary(["strings": .array(strings.map { .string($0) })]))
    }
}
