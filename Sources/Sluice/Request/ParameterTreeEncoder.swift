import FoundationEssentials

/// One value being built by `ParameterTreeEncoder`: a scalar, a keyed or an unkeyed container.
///
/// A class, because containers hand out children that are filled in after they are created.
final class ParameterNode {
    private enum Shape {
        case empty
        case value(Parameter)
        case keyed
        case unkeyed
    }

    private var shape = Shape.empty
    private var keyedChildren: [String: ParameterNode] = [:]
    private var unkeyedChildren: [ParameterNode] = []

    /// The finished value; a node nothing was written to is an empty dictionary, as in JSON.
    var parameter: Parameter {
        switch shape {
        case .empty: return .dictionary([:])
        case .value(let value): return value
        case .keyed: return .dictionary(keyedChildren.mapValues(\.parameter))
        case .unkeyed: return .array(unkeyedChildren.map(\.parameter))
        }
    }

    /// The number of elements of an unkeyed node.
    var unkeyedCount: Int { unkeyedChildren.count }

    /// Makes this node a scalar.
    func set(_ value: Parameter) { shape = .value(value) }

    /// Makes this node keyed (keeping its entries if it already was).
    func becomeKeyed() {
        if case .keyed = shape { return }
        shape = .keyed
        keyedChildren = [:]
    }

    /// Makes this node unkeyed (keeping its elements if it already was).
    func becomeUnkeyed() {
        if case .unkeyed = shape { return }
        shape = .unkeyed
        unkeyedChildren = []
    }

    /// A new child under `key`, replacing any earlier one.
    func child(forKey key: String) -> ParameterNode {
        becomeKeyed()
        let child = ParameterNode()
        keyedChildren[key] = child
        return child
    }

    /// A new child appended to this unkeyed node.
    func appendChild() -> ParameterNode {
        becomeUnkeyed()
        let child = ParameterNode()
        unkeyedChildren.append(child)
        return child
    }

    /// Stores `value` here: Date, Data and URL by the encoder's rules, anything else by `encode(to:)`.
    func store<T: Encodable>(_ value: T, encoder: ParameterTreeEncoder) throws {
        if let special = try encoder.specialParameter(for: value) {
            set(special)
        } else {
            try value.encode(to: encoder)
        }
    }
}

/// The `Encoder` behind `URLEncodedFormEncoder`: writes one `ParameterNode`.
final class ParameterTreeEncoder: Encoder {
    /// The public encoder's settings.
    let options: URLEncodedFormEncoder
    /// The node this encoder writes.
    let node: ParameterNode
    /// Where `node` is.
    let codingPath: [any CodingKey]

    /// The settings' user info.
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo.mapValues { $0 as Any } }

    init(options: URLEncodedFormEncoder, node: ParameterNode, codingPath: [any CodingKey]) {
        self.options = options
        self.node = node
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeKeyed()
        return KeyedEncodingContainer(ParameterKeyedContainer<Key>(encoder: self, node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeUnkeyed()
        return ParameterUnkeyedContainer(encoder: self, node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        ParameterSingleValueContainer(encoder: self, node: node, codingPath: codingPath)
    }

    /// An encoder for `node` at `codingPath`, with the same settings.
    func encoder(for node: ParameterNode, at codingPath: [any CodingKey]) -> ParameterTreeEncoder {
        ParameterTreeEncoder(options: options, node: node, codingPath: codingPath)
    }

    /// The parameter for a value with its own rule (Date, Data, URL, Decimal), or nil.
    func specialParameter<T: Encodable>(for value: T) throws -> Parameter? {
        switch value {
        case let date as Date:
            switch options.dateEncoding {
            case .iso8601: return .string(date.formatted(.iso8601))
            case .secondsSince1970: return try number(date.timeIntervalSince1970)
            case .millisecondsSince1970: return try integer(exactly: (date.timeIntervalSince1970 * 1000).rounded())
            case .custom(let encode): return encode(date)
            }
        case let data as Data:
            switch options.dataEncoding {
            case .base64: return .string(data.base64EncodedString())
            case .custom(let encode): return encode(data)
            }
        case let url as URL:
            return .string(url.absoluteString)
        case let decimal as Decimal:
            return .string(decimal.description)
        default:
            return nil
        }
    }

    /// A floating-point parameter at `path` (this encoder's own by default), refusing NaN and infinity.
    func number(_ value: Double, at path: [any CodingKey]? = nil) throws -> Parameter {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: path ?? codingPath,
                    debugDescription: "\(value) is not a number that a URL or JSON can carry."))
        }
        return .double(value)
    }

    /// A `Float`, as the `Double` its shortest text reads as (so `0.1` stays `0.1`).
    func number(_ value: Float, at path: [any CodingKey]? = nil) throws -> Parameter {
        try number(Double(value.description) ?? Double(value), at: path)
    }

    /// An integer parameter, or its text when it does not fit in `Int`.
    func integer(_ value: some BinaryInteger) -> Parameter {
        Int(exactly: value).map(Parameter.int) ?? .string(value.description)
    }

    /// A whole `Double` as an integer parameter.
    private func integer(exactly value: Double) throws -> Parameter {
        guard value.isFinite else { return try number(value) }
        return Int(exactly: value).map(Parameter.int) ?? .double(value)
    }
}

/// A coding key for array positions and `super`.
package struct ParameterCodingKey: CodingKey {
    package let stringValue: String
    package let intValue: Int?

    package init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    package init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    /// The key of `super` entries.
    package static let superKey = ParameterCodingKey(stringValue: "super")
}
