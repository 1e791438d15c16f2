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
    /// Decodes any property-list value, as `PropertyListDecoder` reads it from XML or binary.
    ///
    /// The decoder offers no way to ask a value's kind, so each kind is tried in turn. One
    /// consequence: a `<real>` with no fractional part (`2.0`) also reads as an integer and becomes
    /// `.integer(2)`; every other value keeps its kind.
    public init(from decoder: any Decoder) throws {
        // Each level is decoded by a nested call, and every failed try builds an error with the
        // whole coding path: without a bound, a document nested 100,000 deep would overflow the
        // stack, and one nested 5,000 deep would take quadratic time. JSONDecoder stops at the
        // same depth.
        guard decoder.codingPath.count < Self.maximumDepth else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "The property list nests deeper than \(Self.maximumDepth) levels."))
        }
        let single = try decoder.singleValueContainer()
        if let bool = try? single.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? single.decode(Int.self) {
            self = .integer(integer)
        } else if let real = try? single.decode(Double.self) {
            self = .real(real)
        } else if let string = try? single.decode(String.self) {
            self = .string(string)
        } else if let date = try? single.decode(Date.self) {
            self = .date(date)
        } else if let data = try? single.decode(Data.self) {
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

    /// The deepest nesting decoded.
    static let maximumDepth = 512

    /// Any dictionary key.
    private struct PropertyListKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
