import FoundationEssentials
import Sluice

extension PropertyListObject: Decodable {
    /// How deeply the `PropertyListObject`s being decoded on this task or thread nest.
    ///
    /// Counted here rather than read from `decoder.codingPath`: building the coding path costs
    /// time in proportion to its depth (more in some decoders), once per value. Not private, so
    /// that a test can start deep: no decoder at hand reads a document past 512 levels quickly
    /// (`JSONDecoder` stops at 512 itself).
    @TaskLocal static var nesting = 0

    /// Decodes any property-list value, from whichever decoder holds one.
    ///
    /// `propertyList()` uses this only for the OpenStep format: XML and binary property lists it
    /// parses itself, in one pass. This is for reading a `PropertyListObject` out of a larger
    /// `Decodable` value, with a decoder of one's own.
    ///
    /// A decoder offers no way to ask a value's kind, so each kind is tried in turn, strings first
    /// (the commonest), then Booleans, integers, reals, dates, data, arrays and dictionaries. Each
    /// wrong guess costs the decoder an error that records its coding path, so a deeply nested
    /// value is slow to decode this way. One consequence of guessing: a `<real>` with no fractional
    /// part (`2.0`) also reads as an integer and becomes `.integer(2)`. An error other than a type
    /// mismatch (an `<integer>` that is not a number) is the value's own and is thrown as it is;
    /// values nested more than 512 deep are refused.
    public init(from decoder: any Decoder) throws {
        let depth = Self.nesting + 1
        guard depth <= Self.maximumDepth else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "Values nested more than \(Self.maximumDepth) deep."))
        }
        self = try Self.$nesting.withValue(depth) { try Self.decodeAnyKind(from: decoder) }
    }

    /// The value `decoder` holds, whatever its kind.
    private static func decodeAnyKind(from decoder: any Decoder) throws -> PropertyListObject {
        let single = try decoder.singleValueContainer()
        if let string = try single.decodeIfKind(String.self) { return .string(string) }
        if let bool = try single.decodeIfKind(Bool.self) { return .bool(bool) }
        // Not `decodeIfKind`: a real with a fraction fails here as data corrupted, and is a real.
        if let integer = try? single.decode(Int.self) { return .integer(integer) }
        if let real = try single.decodeIfKind(Double.self) { return .real(real) }
        if let date = try single.decodeIfKind(Date.self) { return .date(date) }
        if let data = try single.decodeIfKind(Data.self) { return .data(data) }
        if var elements = try? decoder.unkeyedContainer() {
            var array: [PropertyListObject] = []
            while !elements.isAtEnd { array.append(try elements.decode(PropertyListObject.self)) }
            return .array(array)
        }
        let entries = try decoder.container(keyedBy: PropertyListKey.self)
        var dictionary: [String: PropertyListObject] = [:]
        for key in entries.allKeys {
            dictionary[key.stringValue] = try entries.decode(PropertyListObject.self, forKey: key)
        }
        return .dictionary(dictionary)
    }

    /// Any dictionary key.
    private struct PropertyListKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
