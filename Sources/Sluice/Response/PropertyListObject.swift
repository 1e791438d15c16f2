import Foundation

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

    /// Converts what `PropertyListSerialization` returns; nil for anything that is not a property list.
    init?(foundation object: Any) {
        switch object {
        case let string as String: self = .string(string)
        case let date as Date: self = .date(date)
        case let data as Data: self = .data(data)
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c", "B": self = .bool(number.boolValue)
            case "f", "d": self = .real(number.doubleValue)
            default: self = .integer(number.intValue)
            }
        case let array as [Any]:
            var elements: [PropertyListObject] = []
            for element in array {
                guard let value = PropertyListObject(foundation: element) else { return nil }
                elements.append(value)
            }
            self = .array(elements)
        case let dictionary as [String: Any]:
            var entries: [String: PropertyListObject] = [:]
            for (key, element) in dictionary {
                guard let value = PropertyListObject(foundation: element) else { return nil }
                entries[key] = value
            }
            self = .dictionary(entries)
        default: return nil
        }
    }
}
