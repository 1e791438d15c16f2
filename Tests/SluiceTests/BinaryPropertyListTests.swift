import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// Binary property lists, read by Sluice's own parser from files written byte by byte
/// (`BinaryPropertyListFixture`): every kind of object, and files that are truncated, lie about
/// their layout, hold cycles or share objects to blow up.
@Suite("Binary property lists")
struct BinaryPropertyListTests {
    typealias Fixture = BinaryPropertyListFixture

    /// The serializer's value for `data`.
    static func parse(_ data: Data) throws(SluiceError) -> PropertyListObject {
        try XMLPropertyListTests.parse(data: data)
    }

    /// The message after `malformed property list: ` when `data` fails, or nil when it parses.
    static func failure(_ data: Data) -> String? {
        do {
            _ = try parse(data)
            return nil
        } catch {
            let message = error.message.dropFirst("malformed property list: ".count)
            return String(message.prefix { $0 != ";" })
        }
    }

    /// A file holding one of every kind, and the value it stands for.
    static var everyKind: (Fixture, PropertyListObject) {
        var file = Fixture()
        let date = Date(timeIntervalSince1970: 1_700_000_000.5)
        let entries: [(String, [UInt8], PropertyListObject)] = [
            ("true", [0x09], .bool(true)),
            ("false", [0x08], .bool(false)),
            ("one byte", [0x10, 0xFF], .integer(255)),
            ("two bytes", [0x11, 0xFF, 0xFE], .integer(65_534)),
            ("four bytes", [0x12, 0xFF, 0xFF, 0xFF, 0xFF], .integer(4_294_967_295)),
            ("eight bytes", Fixture.integer(-2), .integer(-2)),
            ("sixteen bytes", [0x14] + [UInt8](repeating: 0, count: 15) + [7], .integer(7)),
            ("sixteen bytes negative", [0x14] + [UInt8](repeating: 0xFF, count: 15) + [0xFE], .integer(-2)),
            (
                "past Int.max", [0x14] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 8),
                .real(Double(UInt64.max))
            ),
            ("float", [0x22, 0x3F, 0xC0, 0x00, 0x00], .real(1.5)),
            ("double", Fixture.real(-0.1), .real(-0.1)),
            ("whole double", Fixture.real(2), .real(2)),
            ("date", Fixture.date(date), .date(date)),
            ("data", Fixture.data([0, 1, 2]), .data(Data([0, 1, 2]))),
            ("long data", Fixture.data(Array(0..<20)), .data(Data(0..<20))),
            ("ascii", Fixture.ascii("plain"), .string("plain")),
            (
                "long ascii", Fixture.ascii(String(repeating: "x", count: 300)),
                .string(String(repeating: "x", count: 300))
            ),
            ("utf16", Fixture.utf16("é 😀"), .string("é 😀")),
            ("empty", Fixture.ascii(""), .string("")),
        ]
        let top = file.add([])
        var keys: [Int] = []
        var values: [Int] = []
        for (key, object, _) in entries {
            keys.append(file.add(Fixture.ascii(key)))
            values.append(file.add(object))
        }
        // Collections: an array, a set (read as an array), an empty dictionary, a UTF-16 key, and
        // one string object shared by several references.
        let shared = file.add(Fixture.ascii("shared"))
        let array = file.add(Fixture.array([shared, shared, values[0]]))
        let set = file.add([0xC2, UInt8(values[2]), UInt8(values[3])])
        let empty = file.add(Fixture.dictionary([], []))
        let nested = file.add(Fixture.dictionary([file.add(Fixture.utf16("ünï"))], [empty]))
        for (key, object) in [("array", array), ("set", set), ("nested", nested)] {
            keys.append(file.add(Fixture.ascii(key)))
            values.append(object)
        }
        file.objects[top] = Fixture.dictionary(keys, values)
        var expected = Dictionary(uniqueKeysWithValues: entries.map { ($0.0, $0.2) })
        expected["array"] = .array([.string("shared"), .string("shared"), .bool(true)])
        expected["set"] = .array([.integer(255), .integer(65_534)])
        expected["nested"] = .dictionary(["ünï": .dictionary([:])])
        return (file, .dictionary(expected))
    }

    @Test func everyKindOfObjectIsRead() throws {
        let (file, expected) = Self.everyKind
        #expect(try Self.parse(file.data) == expected)
        // The same file with wider offsets and references, and with its top object elsewhere.
        var wide = Fixture()
        wide.offsetSize = 8
        wide.referenceSize = 2
        let string = wide.add(Fixture.ascii("s"))
        wide.top = wide.add(Fixture.marker(0xA, count: 2) + [0, UInt8(string), 0, UInt8(string)])
        #expect(try Self.parse(wide.data) == .array([.string("s"), .string("s")]))
    }

    @Test func whatPropertyListEncoderWritesReadsAsItsDecoderReadsIt() throws {
        struct Sample: Encodable {
            let text = "héllo"
            let numbers: [Int] = [0, -1, 255, 65_536, .max, .min]
            let unsigned: UInt64 = .max
            let reals: [Double] = [0.5, -2.25, .infinity]
            let flags = [true, false]
            let when = Date(timeIntervalSince1970: 1_234_567_890)
            let bytes = Data([9, 8, 7])
            let nested = ["a": ["b": "c"]]
        }
        let encoder = PropertyListEncoder()
        for format in [PropertyListDecoder.PropertyListFormat.binary, .xml] {
            encoder.outputFormat = format
            let body = try encoder.encode(Sample())
            let parsed = try Self.parse(body)
            #expect(parsed == (try PropertyListDecoder().decode(PropertyListObject.self, from: body)), "\(format)")
            #expect(parsed["unsigned"] == .real(Double(UInt64.max)))
            #expect(parsed["numbers"]?[5] == .integer(.min))
        }
    }

    @Test func everyTruncationAndEveryCorruptedByteFailsCleanly() throws {
        let bytes = Self.everyKind.0.bytes
        // Not 1 to 5 bytes: "b" to "bplis" are each an OpenStep property list of one string.
        for length in [0] + Array(6..<bytes.count) {
            #expect(Self.failure(Data(bytes.prefix(length))) != nil, "\(length) bytes")
        }
        // Each byte set to values that change its meaning: parsed or refused, never a crash.
        for index in bytes.indices {
            for replacement in [0x00, 0x0F, 0x7F, 0x80, 0xFF, bytes[index] ^ 0x01] {
                var corrupted = bytes
                corrupted[index] = replacement
                _ = Self.failure(Data(corrupted))
            }
        }
    }

    /// A file of one object, `object`, with the trailer's fields as given.
    static func single(_ object: [UInt8]) -> Fixture {
        var file = Fixture()
        file.add(object)
        return file
    }

    /// `bytes` with the trailer's 8-byte field at `field` (8: object count, 16: top object,
    /// 24: table offset) or 1-byte field (6: offset size, 7: reference size) set to `value`.
    static func lying(_ bytes: [UInt8], field: Int, _ value: Int) -> Data {
        var bytes = bytes
        let start = bytes.count - 32 + field
        let size = field < 8 ? 1 : 8
        bytes.replaceSubrange(start..<start + size, with: Fixture.bigEndian(value, size: size))
        return Data(bytes)
    }

    @Test func aTrailerThatLiesIsRefused() {
        let bytes = Self.single([0x09]).bytes
        #expect(Self.failure(Data(bytes)) == nil)
        #expect(Self.failure(Data(bytes.prefix(40))) == "a binary property list of 40 bytes is too short to hold one")
        #expect(
            Self.failure(Data("bplist15".utf8) + Data(bytes.dropFirst(8)))
                == #""bplist15" is not a binary property list version read here (bplist00)"#)
        #expect(
            Self.failure(Self.lying(bytes, field: 6, 0))
                == "the trailer gives offsets of 0 bytes and references of 1 (each must be 1 to 8)")
        #expect(
            Self.failure(Self.lying(bytes, field: 7, 9))
                == "the trailer gives offsets of 2 bytes and references of 9 (each must be 1 to 8)")
        #expect(
            Self.failure(Self.lying(bytes, field: 24, 1 << 40))
                == "the trailer puts the offset table at 1099511627776, outside the file")
        #expect(
            Self.failure(Self.lying(bytes, field: 24, 8)) == "the trailer puts the offset table at 8, outside the file")
        #expect(
            Self.failure(Self.lying(bytes, field: 8, 2))
                == "the trailer's 2 objects do not fill the offset table between 9 and 11")
        #expect(
            Self.failure(Self.lying(bytes, field: 8, Int.max))
                == "the trailer's 9223372036854775807 objects do not fill the offset table between 9 and 11")
        #expect(
            Self.failure(Self.lying(bytes, field: 16, 1)) == "the trailer's top object 1 is not one of its 1 objects")
        // An offset that points outside the objects: into the header, or at the table.
        var table = bytes
        table[9...10] = [0, 3]
        #expect(Self.failure(Data(table)) == "object 0 is at 3, outside the objects (8..<9)")
        table[9...10] = [0, 9]
        #expect(Self.failure(Data(table)) == "object 0 is at 9, outside the objects (8..<9)")
    }

    @Test(
        arguments: [
            ([0xA3, 0x00, 0x00], "object 0 runs past the end of the objects"),
            ([0x53, 0x61], "object 0 runs past the end of the objects"),
            ([0x4F, 0x13] + [0x7F] + [UInt8](repeating: 0xFF, count: 7), "object 0 runs past the end of the objects"),
            ([0x4F, 0x13, 0x80] + [UInt8](repeating: 0, count: 7), "object 0 runs past the end of the objects"),
            ([0x5F, 0x23, 0, 0, 0, 0, 0, 0, 0, 1], "object 0's length is not an integer of 1 to 8 bytes"),
            ([0x5F], "object 0 runs past the end of the objects"),
            ([0x13, 0, 0], "object 0 runs past the end of the objects"),
            ([0x33, 0, 0, 0, 0], "object 0 runs past the end of the objects"),
            ([0x15] + [UInt8](repeating: 0, count: 32), "object 0 is an integer of 2^5 bytes (at most 16)"),
            ([0x14, 1] + [UInt8](repeating: 0, count: 15), "object 0 is an integer that does not fit in 64 bits"),
            (
                [0x14] + [UInt8](repeating: 0xFF, count: 8) + [0x7F] + [UInt8](repeating: 0xFF, count: 7),
                "object 0 is an integer that does not fit in 64 bits"
            ),
            ([0x21, 0, 0], "object 0 has the unknown type 0x21"),
            ([0x32] + [UInt8](repeating: 0, count: 8), "object 0 has the unknown type 0x32"),
            ([0x00], "object 0 is null, which a property list value cannot be"),
            ([0x0F], "object 0 is a fill byte, which is not a value"),
            ([0x0C], "object 0 has the unknown type 0x0C"),
            ([0x80, 0x01], "object 0 is an NSKeyedArchiver UID, which is not supported"),
            ([0x70], "object 0 has the unknown type 0x70"),
            ([0xB0], "object 0 has the unknown type 0xB0"),
            ([0xF0], "object 0 has the unknown type 0xF0"),
            ([0x52, 0x61, 0xE9], "object 0, an ASCII string, holds a byte that is not ASCII"),
            ([0x61, 0xDC, 0x00], "object 0, a UTF-16 string, holds an unpaired surrogate"),
            ([0x62, 0xD8, 0x00, 0x00, 0x41], "object 0, a UTF-16 string, holds an unpaired surrogate"),
            ([0xA1, 0x05], "a reference to object 5, of 1"),
            ([0xD1, 0x00, 0x00], "object 0 contains itself"),
        ] as [([UInt8], String)])
    func aMalformedObjectNamesWhatIsWrong(_ object: [UInt8], _ expected: String) {
        #expect(Self.failure(Self.single(object).data) == expected)
    }

    @Test func aHugeCountIsRefusedBeforeAnythingIsAllocated() {
        // 2^60 elements, data bytes, UTF-16 units, dictionary entries: each would need exabytes.
        let count = [0x13] + Fixture.bigEndian(1 << 60, size: 8)
        for type: UInt8 in [0xA, 0xC, 0xD, 0x4, 0x5, 0x6] {
            for referenceSize in [1, 8] {
                var file = Fixture()
                file.referenceSize = referenceSize
                file.add([type << 4 | 0x0F] + count)
                #expect(Self.failure(file.data) == "object 0 runs past the end of the objects", "type \(type)")
            }
        }
    }

    @Test func cyclesAreRefused() {
        // An array that holds itself, two that hold each other, a dictionary whose value or key
        // leads back to it.
        #expect(Self.failure(Self.single(Fixture.array([0])).data) == "object 0 contains itself")
        var pair = Fixture()
        pair.add(Fixture.array([1]))
        pair.add(Fixture.array([2, 0]))
        pair.add(Fixture.ascii("x"))
        #expect(Self.failure(pair.data) == "object 0 contains itself")
        var throughValue = Fixture()
        throughValue.add(Fixture.dictionary([1], [2]))
        throughValue.add(Fixture.ascii("k"))
        throughValue.add(Fixture.array([0]))
        #expect(Self.failure(throughValue.data) == "object 0 contains itself")
        var throughKey = Fixture()
        throughKey.add(Fixture.dictionary([0], [1]))
        throughKey.add(Fixture.ascii("v"))
        #expect(Self.failure(throughKey.data) == "object 0 contains itself")
        // The helper's file of one array holding itself.
        #expect(
            Self.failure(FoundationEssentialsRegressionTests.nestedBinaryPlist(depth: 1, cyclic: true))
                == "object 0 contains itself")
    }

    @Test func aKeyMustBeAString() {
        var file = Fixture()
        file.add(Fixture.dictionary([1], [1]))
        file.add([0x10, 1])
        #expect(Self.failure(file.data) == "dictionary 0 has a key that is not a string (object 1)")
    }

    @Test func sharedObjectsThatWouldStandForAHugeTreeAreRefused() throws {
        // "Billion laughs": each array holds the one before it twice, so 40 small objects stand for
        // 2^40 values. Reading each object once takes no time; the tree is refused all the same.
        var laughs = Fixture()
        laughs.add(Fixture.ascii("ha"))
        for index in 1...40 { laughs.add(Fixture.array([index - 1, index - 1])) }
        laughs.top = 40
        #expect(
            Self.failure(laughs.data)
                == "its shared objects stand for more values than its \(laughs.bytes.count) bytes could hold unshared")
        // A little sharing, as Core Foundation writes an array it meets twice, is read.
        var shared = Fixture()
        shared.add(Fixture.array([1, 1, 1]))
        shared.add(Fixture.array([2, 2]))
        shared.add(Fixture.ascii("x"))
        let inner = PropertyListObject.array([.string("x"), .string("x")])
        #expect(try Self.parse(shared.data) == .array([inner, inner, inner]))
    }

    @Test func aLongKeySharedByManyDictionariesIsRefused() {
        // Each dictionary hashes its keys: one 10 KB key in 2,000 dictionaries would cost 20 MB of
        // hashing for a 40 KB body.
        var file = Fixture()
        file.referenceSize = 2
        file.offsetSize = 4
        let key = file.add(Fixture.ascii(String(repeating: "k", count: 10_000)))
        var dictionaries: [Int] = []
        for _ in 0..<2_000 { dictionaries.append(file.add([0xD1, 0, UInt8(key), 0, UInt8(key)])) }
        file.top = file.add(
            Fixture.marker(0xA, count: dictionaries.count) + dictionaries.flatMap { Fixture.bigEndian($0, size: 2) })
        #expect(
            Self.failure(file.data)
                == "its dictionaries share keys so often that hashing them would cost more than 64 times its size")
    }
}
