import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// Deep property lists, XML and binary: up to 512 levels are read in one pass over the body,
/// however many values the innermost level holds, and anything deeper is refused before it can
/// cost the stack or the time of a decoder that guesses each value's kind.
@Suite("Property-list nesting")
struct PropertyListNestingTests {
    typealias Fixture = BinaryPropertyListFixture

    /// An XML property list of `depth` nested arrays, the innermost holding `leaves` strings.
    static func xml(depth: Int, leaves: Int = 0) -> Data {
        Data(
            (#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"#
                + String(repeating: "<array>", count: depth) + String(repeating: "<string>leaf</string>", count: leaves)
                + String(repeating: "</array>", count: depth) + "</plist>").utf8)
    }

    /// A binary property list of `depth` nested arrays, the innermost holding `leaves` references
    /// to distinct strings.
    static func binary(depth: Int, leaves: Int = 0) -> Data {
        var file = Fixture()
        file.referenceSize = 4
        file.offsetSize = 4
        for index in 0..<depth - 1 { file.add([0xA1] + Fixture.bigEndian(index + 1, size: 4)) }
        let strings = (0..<leaves).map { depth + $0 }
        file.add(Fixture.marker(0xA, count: leaves) + strings.flatMap { Fixture.bigEndian($0, size: 4) })
        for leaf in 0..<leaves { file.add(Fixture.ascii("leaf \(leaf)")) }
        return file.data
    }

    /// The depth of nested arrays and the number of values in the innermost.
    static func shape(of value: PropertyListObject) -> (depth: Int, leaves: Int) {
        var depth = 0
        var current = value
        while case .array(let elements) = current {
            depth += 1
            guard elements.count == 1, case .array = elements[0] else { return (depth, elements.count) }
            current = elements[0]
        }
        return (depth, 0)
    }

    static func parse(_ data: Data) throws(SluiceError) -> PropertyListObject {
        try XMLPropertyListTests.parse(data: data)
    }

    @Test func a512DeepListAndA500DeepNestOf5000StringsAreRead() throws {
        // Through PropertyListDecoder and trial decoding, the first took about 1.5 s of CPU and the
        // second far longer: every wrong guess cost an error recording a 500-level coding path.
        #expect(Self.shape(of: try Self.parse(Self.xml(depth: 512))) == (512, 0))
        #expect(Self.shape(of: try Self.parse(Self.binary(depth: 512))) == (512, 0))
        #expect(Self.shape(of: try Self.parse(Self.xml(depth: 500, leaves: 5_000))) == (500, 5_000))
        #expect(Self.shape(of: try Self.parse(Self.binary(depth: 500, leaves: 5_000))) == (500, 5_000))
    }

    @Test func valuesNestedDeeperThan512AreRefused() {
        for (body, message) in [
            (Self.xml(depth: 513), "elements nested more than 512 deep"),
            (Self.xml(depth: 512, leaves: 1), "elements nested more than 512 deep"),
            (Self.xml(depth: 1_000_000), "elements nested more than 512 deep"),
            // Without the <plist> around it, the XML parser allows one level more: the values may not.
            (
                Data((String(repeating: "<array>", count: 513) + String(repeating: "</array>", count: 513)).utf8),
                "elements nested more than 512 deep"
            ),
            (Self.binary(depth: 513), "arrays and dictionaries nested more than 512 deep"),
            (Self.binary(depth: 512, leaves: 1), "arrays and dictionaries nested more than 512 deep"),
            (Self.binary(depth: 100_000), "arrays and dictionaries nested more than 512 deep"),
        ] {
            #expect(throws: SluiceError.self) { try Self.parse(body) }
            do {
                _ = try Self.parse(body)
            } catch {
                #expect(error.message.hasPrefix("malformed property list: \(message); "), "\(error.message)")
            }
        }
    }

    @Test func anObjectReadShallowIsStillTooDeepWhereItIsSharedDeeper() {
        // The top array holds a chain of 300 arrays, then a second chain of 300 that ends in the
        // first: read once, at depth 2, the first chain is 300 deep, but 600 where it is shared.
        var file = Fixture()
        file.referenceSize = 2
        let top = file.add([])
        for index in 1...300 {
            file.add(
                index < 300
                    ? Fixture.marker(0xA, count: 1) + Fixture.bigEndian(index + 1, size: 2)
                    : Fixture.marker(0xA, count: 0))
        }
        for index in 301...600 {
            file.add(Fixture.marker(0xA, count: 1) + Fixture.bigEndian(index < 600 ? index + 1 : 1, size: 2))
        }
        file.objects[top] =
            Fixture.marker(0xA, count: 2) + Fixture.bigEndian(1, size: 2) + Fixture.bigEndian(301, size: 2)
        #expect(BinaryPropertyListTests.failure(file.data) == "arrays and dictionaries nested more than 512 deep")
    }

    @Test func aDeepUTF16DocumentIsRefusedToo() {
        let text =
            "<plist>" + String(repeating: "<array>", count: 600) + String(repeating: "</array>", count: 600)
            + "</plist>"
        let body = Data([0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        #expect(throws: SluiceError.self) { try Self.parse(body) }
    }
}
