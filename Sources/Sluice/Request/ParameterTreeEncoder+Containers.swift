import FoundationEssentials

/// A keyed container writing the entries of a dictionary node.
struct ParameterKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ParameterTreeEncoder
    let node: ParameterNode
    let codingPath: [any CodingKey]

    private func store(_ value: Parameter, forKey key: Key) { node.child(forKey: key.stringValue).set(value) }

    private func childEncoder(forKey key: any CodingKey) -> ParameterTreeEncoder {
        encoder.encoder(for: node.child(forKey: key.stringValue), at: codingPath + [key])
    }

    mutating func encodeNil(forKey key: Key) throws { store(.null, forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { store(.bool(value), forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { store(.string(value), forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        store(try encoder.number(value, at: codingPath + [key]), forKey: key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        store(try encoder.number(value, at: codingPath + [key]), forKey: key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { store(.int(value), forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { store(encoder.integer(value), forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { store(encoder.integer(value), forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { store(encoder.integer(value), forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { store(encoder.integer(value), forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { store(encoder.integer(value), forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { store(encoder.integer(value), forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { store(encoder.integer(value), forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { store(encoder.integer(value), forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { store(encoder.integer(value), forKey: key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let child = childEncoder(forKey: key)
        try child.node.store(value, encoder: child)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        childEncoder(forKey: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        childEncoder(forKey: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { childEncoder(forKey: ParameterCodingKey.superKey) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { childEncoder(forKey: key) }
}

/// An unkeyed container appending the elements of an array node.
struct ParameterUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: ParameterTreeEncoder
    let node: ParameterNode
    let codingPath: [any CodingKey]

    var count: Int { node.unkeyedCount }

    private func append(_ value: Parameter) { node.appendChild().set(value) }

    private func nextEncoder() -> ParameterTreeEncoder {
        let key = ParameterCodingKey(intValue: node.unkeyedCount)
        return encoder.encoder(for: node.appendChild(), at: codingPath + [key])
    }

    /// The path the next element will have, for errors raised before it is appended.
    private var nextPath: [any CodingKey] { codingPath + [ParameterCodingKey(intValue: node.unkeyedCount)] }

    mutating func encodeNil() throws { append(.null) }
    mutating func encode(_ value: Bool) throws { append(.bool(value)) }
    mutating func encode(_ value: String) throws { append(.string(value)) }
    mutating func encode(_ value: Double) throws { append(try encoder.number(value, at: nextPath)) }
    mutating func encode(_ value: Float) throws { append(try encoder.number(value, at: nextPath)) }
    mutating func encode(_ value: Int) throws { append(.int(value)) }
    mutating func encode(_ value: Int8) throws { append(encoder.integer(value)) }
    mutating func encode(_ value: Int16) throws { append(encoder.integer(value)) }
    mutating func encode(_ value: Int32) throws { append(encoder.integer(value)) }
    mutating func encode(_ value: Int64) throws { append(encoder.integer(value)) }
    mutating func encode(_ value: UInt) throws { append(encoder.integer(value)) }
    mutating func encode(_ value: UInt8) throws { append(encoder.integer(value)) }
    mutating func encode(_ value: UInt16) throws { append(encoder.integer(value)) }
    mutating func encode(_ value: UInt32) throws { append(encoder.integer(value)) }
    mutating func encode(_ value: UInt64) throws { append(encoder.integer(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let child = nextEncoder()
        try child.node.store(value, encoder: child)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        nextEncoder().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { nextEncoder().unkeyedContainer() }

    mutating func superEncoder() -> any Encoder { nextEncoder() }
}

/// A single-value container setting a scalar node.
struct ParameterSingleValueContainer: SingleValueEncodingContainer {
    let encoder: ParameterTreeEncoder
    let node: ParameterNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.set(.null) }
    mutating func encode(_ value: Bool) throws { node.set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.set(try encoder.number(value)) }
    mutating func encode(_ value: Float) throws { node.set(try encoder.number(value)) }
    mutating func encode(_ value: Int) throws { node.set(.int(value)) }
    mutating func encode(_ value: Int8) throws { node.set(encoder.integer(value)) }
    mutating func encode(_ value: Int16) throws { node.set(encoder.integer(value)) }
    mutating func encode(_ value: Int32) throws { node.set(encoder.integer(value)) }
    mutating func encode(_ value: Int64) throws { node.set(encoder.integer(value)) }
    mutating func encode(_ value: UInt) throws { node.set(encoder.integer(value)) }
    mutating func encode(_ value: UInt8) throws { node.set(encoder.integer(value)) }
    mutating func encode(_ value: UInt16) throws { node.set(encoder.integer(value)) }
    mutating func encode(_ value: UInt32) throws { node.set(encoder.integer(value)) }
    mutating func encode(_ value: UInt64) throws { node.set(encoder.integer(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws { try node.store(value, encoder: encoder) }
}
