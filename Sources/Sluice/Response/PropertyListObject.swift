import FoundationEssentials

/// Any property-list value, as `propertyList()` delivers it: a Sendable tree to read with subscripts.
public enum PropertyListObject: Sendable, Hashable {
    /// A string.
    case string(String)
    /// An integer.
    case integer(Int)
    /// A floating-point number.
    case real(Double)
    /// A Boolean.
    case bool(Bool)
    /// A date.
    case date(Date)
    /// Raw bytes.
    case data(Data)
    /// An array.
    case array([PropertyListObject])
    /// A dictionary.
    case dictionary([String: PropertyListObject])
}

extension PropertyListObject {
    /// The entry for `key` of a dictionary; nil for other values or a missing key.
    public subscript(key: String) -> PropertyListObject? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries[key]
    }

    /// The element at `index` of an array; nil for other values or an index out of range.
    public subscript(index: Int) -> PropertyListObject? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

extension PropertyListObject: Decodable {
    /// How deeply arrays and dictionaries may nest: decoding is recursive, so a hostile body nested
    /// tens of thousands deep would otherwise overflow the thread's stack and crash the process.
    static let maximumDepth = 512

    /// Decodes any property-list value, as `PropertyListDecoder` reads it from XML or binary.
    ///
    /// The decoder offers no way to ask a value's kind, so each kind is tried in turn. One
    /// consequence: a `<real>` with no fractional part (`2.0`) also reads as an integer and becomes
    /// `.integer(2)`; every other value keeps its kind. An error other than a type mismatch (an
    /// `<integer>` that is not a number, a date that is not one) is the value's own and is thrown as
    /// it is; arrays and dictionaries nested deeper than `maximumDepth` are refused.
    public init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count < Self.maximumDepth else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "Arrays and dictionaries nested more than \(Self.maximumDepth) deep."))
        }
        let single = try decoder.singleValueContainer()
        if let bool = try Self.decodeIfKind(Bool.self, from: single) {
            self = .bool(bool)
        } else if let integer = try? single.decode(Int.self) {
            // Not `decodeIfKind`: a real with a fraction fails here as data corrupted, and is a real.
            self = .integer(integer)
        } else if let real = try Self.decodeIfKind(Double.self, from: single) {
            self = .real(real)
        } else if let string = try Self.decodeIfKind(String.self, from: single) {
            self = .string(string)
        } else if let date = try Self.decodeIfKind(Date.self, from: single) {
            self = .date(date)
        } else if let data = try Self.decodeIfKind(Data.self, from: single) {
            self = .data(data)
        } else if var elements = try? decoder.unkeyedContainer() {
            var array: [PropertyListObject] = []
            while !elements.isAtEnd { array.append(try elements.decode(PropertyListObject.self)) }
            self = .array(array)
        } else {
            let entries = try decoder.container(keyedBy: PropertyListKey.self)
            var dictionary: [String: PropertyListObject] = [:]
            for key in entries.allKeys {
                dictionary[key.stringValue] = try entries.decode(PropertyListObject.self, forKey: key)
            }
            self = .dictionary(dictionary)
        }
    }

    /// The value decoded as `type`, or nil when it is of another kind.
    private static func decodeIfKind<T: Decodable>(
        _ type: T.Type, from container: any SingleValueDecodingContainer
    ) throws -> T? {
        do {
            return try container.decode(type)
        } catch DecodingError.typeMismatch {
            return nil
        }
    }

    /// Any dictionary key.
    private struct PropertyListKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
