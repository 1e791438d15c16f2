import FoundationEssentials
import Sluice

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
    /// How deeply values may nest, the top value being at depth 1: the parsers, and the decoding of
    /// anything inside, are recursive, so a hostile body nested tens of thousands deep would
    /// otherwise overflow the thread's stack and crash the process.
    static let maximumDepth = 512

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
