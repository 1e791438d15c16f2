import FoundationEssentials
import Sluice

/// Reading one object of a binary property list: its marker byte says its type in the high four
/// bits and, for most types, its length in the low four (`0xF`: an integer object follows with it).
extension BinaryPropertyList.Reader {
    /// Object `index`, at `depth` in the tree (1 for the top object), with its height and size:
    /// read once, and kept for every other reference to it.
    mutating func object(_ index: Int, depth: Int) throws(PropertyListSyntaxError) -> (
        value: PropertyListObject, height: Int, size: Int
    ) {
        if slots[index] != 0 {
            let entry = entries[Int(slots[index]) - 1]
            guard let value = entry.value else { throw PropertyListSyntaxError("object \(index) contains itself") }
            guard depth - 1 + entry.height <= PropertyListObject.maximumDepth else { throw Self.tooDeep }
            return (value, entry.height, entry.size)
        }
        guard depth <= PropertyListObject.maximumDepth else { throw Self.tooDeep }
        let offset = try offset(of: index)
        // Its entry first, valueless: met again while it is read, the object holds itself.
        entries.append(Entry())
        let slot = entries.count
        slots[index] = UInt32(slot)
        let (value, height, size): (PropertyListObject, Int, Int)
        switch bytes[offset] >> 4 {
        case 0xA, 0xC: (value, height, size) = try array(index, at: offset, depth: depth)
        case 0xD: (value, height, size) = try dictionary(index, at: offset, depth: depth)
        default: (value, height, size) = (try scalar(index, at: offset), 1, 1)
        }
        entries[slot - 1] = Entry(value: value, height: height, size: size)
        return (value, height, size)
    }

    /// An array or a set (read as an array, in the file's order), with its height and size.
    mutating func array(_ index: Int, at offset: Int, depth: Int) throws(PropertyListSyntaxError) -> (
        PropertyListObject, height: Int, size: Int
    ) {
        let (count, start) = try length(of: index, at: offset)
        try require(count, of: referenceSize, from: start, for: index)
        var elements: [PropertyListObject] = []
        elements.reserveCapacity(count)
        var height = 0
        var size = 1
        for position in 0..<count {
            let element = try object(try reference(at: start + position * referenceSize), depth: depth + 1)
            elements.append(element.value)
            height = max(height, element.height)
            size = try adding(element.size, to: size)
        }
        return (.array(elements), height + 1, size)
    }

    /// A dictionary: its count of keys, then the references to the keys, then to the values.
    mutating func dictionary(_ index: Int, at offset: Int, depth: Int) throws(PropertyListSyntaxError) -> (
        PropertyListObject, height: Int, size: Int
    ) {
        let (count, start) = try length(of: index, at: offset)
        try require(count, of: 2 * referenceSize, from: start, for: index)
        var members: [String: PropertyListObject] = [:]
        members.reserveCapacity(count)
        var height = 0
        var size = 1
        for position in 0..<count {
            let keyIndex = try reference(at: start + position * referenceSize)
            guard case .string(let key) = try object(keyIndex, depth: depth + 1).value else {
                throw PropertyListSyntaxError("dictionary \(index) has a key that is not a string (object \(keyIndex))")
            }
            keyBytesLeft -= key.utf8.count
            guard keyBytesLeft >= 0 else {
                throw PropertyListSyntaxError(
                    "its dictionaries share keys so often that hashing them would cost more than 64 times its size")
            }
            let value = try object(try reference(at: start + (count + position) * referenceSize), depth: depth + 1)
            // A repeated key keeps its last value, as in an XML property list.
            members[key] = value.value
            height = max(height, value.height)
            size = try adding(value.size, to: size)
        }
        return (.dictionary(members), height + 1, size)
    }

    /// `size` plus a child's `childSize`, checked against `maximumValues`.
    func adding(_ childSize: Int, to size: Int) throws(PropertyListSyntaxError) -> Int {
        guard childSize <= maximumValues - size else {
            throw PropertyListSyntaxError(
                "its shared objects stand for more values than its \(maximumValues) bytes could hold unshared")
        }
        return size + childSize
    }

    /// A value that holds no other object.
    func scalar(_ index: Int, at offset: Int) throws(PropertyListSyntaxError) -> PropertyListObject {
        let marker = bytes[offset]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0 where marker == 0x08 || marker == 0x09:
            return .bool(marker == 0x09)
        case 0x0 where marker == 0x00:
            throw PropertyListSyntaxError("object \(index) is null, which a property list value cannot be")
        case 0x0 where marker == 0x0F:
            throw PropertyListSyntaxError("object \(index) is a fill byte, which is not a value")
        case 0x1:
            return try integer(index, at: offset)
        case 0x2 where low == 2 || low == 3:
            let size = 1 << low
            try require(size, from: offset + 1, for: index)
            let bits = Self.integer(in: bytes, at: offset + 1, size: size)
            return .real(
                size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits))
        case 0x3 where marker == 0x33:
            try require(8, from: offset + 1, for: index)
            return .date(
                Date(
                    timeIntervalSinceReferenceDate: Double(bitPattern: Self.integer(in: bytes, at: offset + 1, size: 8))
                ))
        case 0x4:
            let (count, start) = try length(of: index, at: offset)
            try require(count, from: start, for: index)
            return .data(Data(UnsafeBufferPointer(rebasing: bytes[start..<start + count])))
        case 0x5:
            let (count, start) = try length(of: index, at: offset)
            try require(count, from: start, for: index)
            let text = UnsafeBufferPointer(rebasing: bytes[start..<start + count])
            guard text.allSatisfy({ $0 < 0x80 }) else {
                throw PropertyListSyntaxError("object \(index), an ASCII string, holds a byte that is not ASCII")
            }
            return .string(String(decoding: text, as: UTF8.self))
        case 0x6:
            let (count, start) = try length(of: index, at: offset)
            try require(count, of: 2, from: start, for: index)
            return .string(try utf16String(index, from: start, units: count))
        case 0x8:
            throw PropertyListSyntaxError("object \(index) is an NSKeyedArchiver UID, which is not supported")
        default:
            throw PropertyListSyntaxError(
                "object \(index) has the unknown type 0x\(TextLocation.hex(UInt32(marker), digits: 2))")
        }
    }

    /// An integer: 1, 2 or 4 bytes unsigned, 8 bytes signed, or 16 bytes signed (how Core
    /// Foundation writes an unsigned 64-bit value above `Int64.max`: its high half zero). Such a
    /// value becomes the nearest `.real`, as in an XML property list; one that fits in 64 bits
    /// neither signed nor unsigned is an error.
    func integer(_ index: Int, at offset: Int) throws(PropertyListSyntaxError) -> PropertyListObject {
        let low = Int(bytes[offset] & 0x0F)
        guard low <= 4 else {
            throw PropertyListSyntaxError("object \(index) is an integer of 2^\(low) bytes (at most 16)")
        }
        let size = 1 << low
        try require(size, from: offset + 1, for: index)
        switch size {
        case 8:
            return .integer(Int(Int64(bitPattern: Self.integer(in: bytes, at: offset + 1, size: 8))))
        case 16:
            let high = Self.integer(in: bytes, at: offset + 1, size: 8)
            let value = Self.integer(in: bytes, at: offset + 9, size: 8)
            if high == 0 { return Int(exactly: value).map { .integer($0) } ?? .real(Double(value)) }
            // A negative value in 128 bits: its high half all ones, its low half negative on its own.
            guard high == .max, Int64(bitPattern: value) < 0 else {
                throw PropertyListSyntaxError("object \(index) is an integer that does not fit in 64 bits")
            }
            return .integer(Int(Int64(bitPattern: value)))
        default:
            return .integer(Int(Self.integer(in: bytes, at: offset + 1, size: size)))
        }
    }

    /// The string in `units` big-endian UTF-16 code units from `start` (in bounds); an unpaired
    /// surrogate is an error rather than a replacement character, as `PropertyListDecoder` had it.
    func utf16String(_ index: Int, from start: Int, units: Int) throws(PropertyListSyntaxError) -> String {
        var utf8: [UInt8] = []
        guard
            UTF16Bytes.transcode(
                UnsafeBufferPointer(rebasing: bytes[start..<start + 2 * units]), bigEndian: true, into: &utf8)
        else {
            throw PropertyListSyntaxError("object \(index), a UTF-16 string, holds an unpaired surrogate")
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The length in an object's marker, and where its contents start: the low four bits, or
    /// when they are all set, the integer object (of 1 to 8 bytes) that follows the marker.
    func length(of index: Int, at offset: Int) throws(PropertyListSyntaxError) -> (Int, start: Int) {
        let low = Int(bytes[offset] & 0x0F)
        guard low == 0x0F else { return (low, offset + 1) }
        try require(1, from: offset + 1, for: index)
        let marker = bytes[offset + 1]
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else {
            throw PropertyListSyntaxError("object \(index)'s length is not an integer of 1 to 8 bytes")
        }
        let size = 1 << Int(marker & 0x0F)
        try require(size, from: offset + 2, for: index)
        let length = Self.integer(in: bytes, at: offset + 2, size: size)
        guard let count = Int(exactly: length) else {
            throw PropertyListSyntaxError("object \(index) runs past the end of the objects")
        }
        return (count, offset + 2 + size)
    }

    /// The error for values nested deeper than `PropertyListObject.maximumDepth`.
    static var tooDeep: PropertyListSyntaxError {
        PropertyListSyntaxError("arrays and dictionaries nested more than \(PropertyListObject.maximumDepth) deep")
    }
}
