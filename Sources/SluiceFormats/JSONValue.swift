import FoundationEssentials
import Sluice

/// Any JSON value, as `json()` delivers it: a Sendable tree to read with subscripts.
///
///     let name = try await client.get("users/42").json().value["user"]?["name"]?.stringValue
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number (JSON does not tell integers apart).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])
}

extension JSONValue {
    /// The member named `key` of an object; nil for other values or a missing key.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index` of an array; nil for other values or an index out of range.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number, if this is one.
    public var doubleValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as an `Int`, if this is a number with no fractional part that fits.
    public var intValue: Int? { doubleValue.flatMap { Int(exactly: $0) } }

    /// The Boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, if this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// This value with every object member whose value is `null` removed, at any depth
    /// (`null` elements of arrays stay, as AFNetworking's `removesKeysWithNullValues` does).
    public func removingNullValues() -> JSONValue {
        switch self {
        case .array(let elements): return .array(elements.map { $0.removingNullValues() })
        case .object(let members):
            return .object(members.filter { $0.value != .null }.mapValues { $0.removingNullValues() })
        default: return self
        }
    }
}

extension JSONValue: Codable {
    /// Decodes any JSON value.
    ///
    /// The decoder offers no way to ask a value's kind, so each kind is tried in turn
    /// (`decodeIfKind`): a type mismatch only means "not this kind", while any other error is the
    /// value's own and is thrown as it is. Strings, the commonest values, are tried first.
    ///
    /// Each failed try costs the decoder an error whose coding path grows with the value's depth, so
    /// this is for a `JSONValue` inside a type of your own; `json()` parses a whole body with
    /// Sluice's own parser instead, in one pass.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let string = try container.decodeIfKind(String.self) {
            self = .string(string)
        } else if let number = try container.decodeIfKind(Double.self) {
            self = .number(number)
        } else if let bool = try container.decodeIfKind(Bool.self) {
            self = .bool(bool)
        } else if let array = try container.decodeIfKind([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as the JSON it stands for.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `null` from `nil`.
    public init(nilLiteral: ()) { self = .null }
    /// A Boolean from a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A number from an integer literal.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A number from a literal.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A string from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array from a literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object from a literal.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
