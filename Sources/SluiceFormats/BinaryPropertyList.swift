import FoundationEssentials
import Sluice

/// Reads a binary property list (`bplist00`, Core Foundation's format) into a
/// `PropertyListObject`, without trusting a byte of it.
///
/// The format: an 8-byte header, the objects, an offset table giving each object's offset, and a
/// 32-byte trailer giving the sizes of offsets and of object references, the number of objects,
/// the top object and where the table starts. Every offset, length and reference is checked
/// against the bounds it must lie in before anything is read, so a truncated or lying file is an
/// error, never a crash.
///
/// Objects refer to each other by index, so a hostile file can make them cyclic, or share one
/// object so often that the tree it stands for is exponentially large ("billion laughs"). Each
/// object is therefore read once and kept (`Reader`): a cycle is an object met again while it is
/// being read, the depth of every value is known, and the whole tree may not hold more values
/// than the body has bytes, which any file that shares nothing meets.
///
/// What is read: booleans, integers of 1, 2, 4 and 8 bytes (8 signed) and of 16 bytes whose value
/// fits in 64 bits, reals of 4 and 8 bytes, dates, data, ASCII and UTF-16 strings, arrays, sets
/// (as arrays) and dictionaries with string keys. Refused, as `PropertyListDecoder` could not read
/// them into a value either: null, fill bytes, NSKeyedArchiver UIDs and any other object type.
enum BinaryPropertyList {
    /// The size of the trailer at the end of the file.
    static let trailerSize = 32

    /// The value of the binary property list in `body`, or what is wrong with it.
    static func parse(_ body: Data) throws(PropertyListSyntaxError) -> PropertyListObject {
        try withContiguousBytes(of: body) { bytes throws(PropertyListSyntaxError) in
            var reader = try Reader(bytes: bytes)
            return try reader.object(reader.topObject, depth: 1).value
        }
    }

    /// The state of one read: the file's layout, from its trailer, and each object once read.
    struct Reader {
        /// An object met: its value once read, and what it costs wherever it is shared.
        struct Entry {
            /// The value; nil while it is being read, so that an object met again then holds itself.
            var value: PropertyListObject?
            /// How deeply it nests (1 for a scalar or an empty collection).
            var height = 1
            /// How many values it stands for, itself and every value inside it.
            var size = 1
        }

        /// The file; objects are read only from `8..<tableOffset`, the table only up to the trailer.
        let bytes: UnsafeBufferPointer<UInt8>
        /// Where the offset table starts, which is also where the objects end.
        let tableOffset: Int
        /// The size in bytes of each offset in the table (1 to 8).
        let offsetSize: Int
        /// The size in bytes of each object reference in arrays and dictionaries (1 to 8).
        let referenceSize: Int
        /// The number of objects, and of offsets in the table.
        let objectCount: Int
        /// The index of the top object.
        let topObject: Int
        /// For each object, by index: 0 until it is met, then one more than the index of its entry
        /// in `entries`. Four bytes per object the trailer declares, so that a file declaring
        /// millions of objects and using few costs little more than its own offset table.
        var slots: [UInt32]
        /// The objects met so far, in the order they were met.
        var entries: [Entry]
        /// The values the tree may still hold: one per byte of the body.
        let maximumValues: Int
        /// The bytes of dictionary keys still to hash: a key is hashed into every dictionary that
        /// holds it, so a long key shared by many dictionaries would cost far more than its bytes.
        var keyBytesLeft: Int

        /// Checks the header and the trailer of `bytes`, which must describe an offset table that
        /// fills the space between the objects and the trailer exactly.
        init(bytes: UnsafeBufferPointer<UInt8>) throws(PropertyListSyntaxError) {
            self.bytes = bytes
            guard bytes.count >= 8 + 1 + BinaryPropertyList.trailerSize else {
                throw PropertyListSyntaxError("a binary property list of \(bytes.count) bytes is too short to hold one")
            }
            guard bytes.starts(with: "bplist0".utf8) else {
                let version = String(decoding: bytes.prefix(8), as: UTF8.self)
                throw PropertyListSyntaxError(
                    "\(version.debugDescription) is not a binary property list version read here (bplist00)")
            }
            let trailer = bytes.count - BinaryPropertyList.trailerSize
            offsetSize = Int(bytes[trailer + 6])
            referenceSize = Int(bytes[trailer + 7])
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
                throw PropertyListSyntaxError(
                    "the trailer gives offsets of \(offsetSize) bytes and references of \(referenceSize) (each must be 1 to 8)"
                )
            }
            let count = Self.integer(in: bytes, at: trailer + 8, size: 8)
            let top = Self.integer(in: bytes, at: trailer + 16, size: 8)
            let table = Self.integer(in: bytes, at: trailer + 24, size: 8)
            guard table >= 9, table <= UInt64(trailer) else {
                throw PropertyListSyntaxError("the trailer puts the offset table at \(table), outside the file")
            }
            tableOffset = Int(table)
            guard count >= 1, count == UInt64((trailer - tableOffset) / offsetSize),
                (trailer - tableOffset) % offsetSize == 0
            else {
                throw PropertyListSyntaxError(
                    "the trailer's \(count) objects do not fill the offset table between \(tableOffset) and \(trailer)")
            }
            guard count < UInt32.max else {
                throw PropertyListSyntaxError("the trailer's \(count) objects are more than 2^32 - 1")
            }
            objectCount = Int(count)
            guard top < count else {
                throw PropertyListSyntaxError("the trailer's top object \(top) is not one of its \(count) objects")
            }
            topObject = Int(top)
            slots = Array(repeating: 0, count: objectCount)
            entries = []
            maximumValues = bytes.count
            keyBytesLeft = 64 * bytes.count
        }

        /// The big-endian unsigned integer of `size` bytes (at most 8) at `offset`, which the
        /// caller has checked is in bounds.
        static func integer(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int, size: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in offset..<offset + size { value = value << 8 | UInt64(bytes[index]) }
            return value
        }

        /// The offset of object `index` (in range), checked to lie among the objects.
        func offset(of index: Int) throws(PropertyListSyntaxError) -> Int {
            let offset = Self.integer(in: bytes, at: tableOffset + index * offsetSize, size: offsetSize)
            guard offset >= 8, offset < UInt64(tableOffset) else {
                throw PropertyListSyntaxError(
                    "object \(index) is at \(offset), outside the objects (8..<\(tableOffset))")
            }
            return Int(offset)
        }

        /// The object index in the reference at `offset` (in bounds), checked to name an object.
        func reference(at offset: Int) throws(PropertyListSyntaxError) -> Int {
            let index = Self.integer(in: bytes, at: offset, size: referenceSize)
            guard index < UInt64(objectCount) else {
                throw PropertyListSyntaxError("a reference to object \(index), of \(objectCount)")
            }
            return Int(index)
        }

        /// Fails unless `count` items of `size` bytes from `start` end before the offset table.
        func require(_ count: Int, of size: Int = 1, from start: Int, for index: Int) throws(PropertyListSyntaxError) {
            let (length, overflowed) = count.multipliedReportingOverflow(by: size)
            guard !overflowed, start <= tableOffset, length <= tableOffset - start else {
                throw PropertyListSyntaxError("object \(index) runs past the end of the objects")
            }
        }
    }
}
