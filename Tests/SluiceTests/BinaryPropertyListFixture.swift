import Foundation

/// A binary property list written by hand, object by object, as the format lays it out: the
/// `bplist00` header, the objects, the offset table and the 32-byte trailer. Tests use it to
/// write exactly the bytes they mean, lies included, which no encoder would write.
struct BinaryPropertyListFixture {
    /// Each object's bytes, its marker first, in index order.
    var objects: [[UInt8]] = []
    /// The index of the top object.
    var top = 0
    /// The size of each object reference.
    var referenceSize = 1
    /// The size of each offset in the table.
    var offsetSize = 2

    /// Adds an object and returns its index.
    @discardableResult
    mutating func add(_ object: [UInt8]) -> Int {
        objects.append(object)
        return objects.count - 1
    }

    /// The file: header, objects, offset table and trailer, each from the fields above.
    var bytes: [UInt8] {
        var body = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(body.count)
            body += object
        }
        let table = body.count
        for offset in offsets { body += Self.bigEndian(offset, size: offsetSize) }
        body += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        body += Self.bigEndian(objects.count, size: 8) + Self.bigEndian(top, size: 8) + Self.bigEndian(table, size: 8)
        return body
    }

    /// The file as `Data`.
    var data: Data { Data(bytes) }

    /// `value` in `size` big-endian bytes.
    static func bigEndian(_ value: Int, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// A marker with the type in its high four bits and `count` in its low four, or `0xF` and an
    /// integer object after it when the count does not fit.
    static func marker(_ type: UInt8, count: Int) -> [UInt8] {
        if count < 15 { return [type << 4 | UInt8(count)] }
        return [type << 4 | 0x0F, 0x13] + bigEndian(count, size: 8)
    }

    /// An 8-byte signed integer object.
    static func integer(_ value: Int) -> [UInt8] { [0x13] + bigEndian(value, size: 8) }

    /// An 8-byte real object.
    static func real(_ value: Double) -> [UInt8] {
        [0x23] + bigEndian(Int(bitPattern: UInt(value.bitPattern)), size: 8)
    }

    /// A date object: seconds since 1 January 2001.
    static func date(_ date: Date) -> [UInt8] {
        [0x33] + bigEndian(Int(bitPattern: UInt(date.timeIntervalSinceReferenceDate.bitPattern)), size: 8)
    }

    /// An ASCII string object.
    static func ascii(_ text: String) -> [UInt8] { marker(0x5, count: text.utf8.count) + Array(text.utf8) }

    /// A UTF-16 string object, big-endian.
    static func utf16(_ text: String) -> [UInt8] {
        marker(0x6, count: text.utf16.count) + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// A data object.
    static func data(_ bytes: [UInt8]) -> [UInt8] { marker(0x4, count: bytes.count) + bytes }

    /// An array object of one-byte references.
    static func array(_ references: [Int]) -> [UInt8] {
        marker(0xA, count: references.count) + references.map { UInt8($0) }
    }

    /// A dictionary object of one-byte references: the keys', then the values'.
    static func dictionary(_ keys: [Int], _ values: [Int]) -> [UInt8] {
        marker(0xD, count: keys.count) + keys.map { UInt8($0) } + values.map { UInt8($0) }
    }
}
