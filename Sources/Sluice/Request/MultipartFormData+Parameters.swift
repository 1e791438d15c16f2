import FoundationEssentials

extension MultipartFormData {
    /// Appends parameters as text fields, one per leaf value, named with AFNetworking's nesting rules.
    ///
    /// Keys are sorted at every level; a dictionary's values are named `key[sub]`, an array's and a
    /// set's `key[]` (arrays keep their order, sets are sorted); Booleans are sent as `1` and `0`,
    /// `null` as an empty value; empty arrays and dictionaries send nothing. A NaN or infinite
    /// number fails with `.invalidParameters`, naming it in `keyPath`, and appends nothing.
    public mutating func append(_ parameters: Parameters) throws(SluiceError) {
        var fields: [(name: String, value: String)] = []
        for key in parameters.keys.sorted() {
            try Self.flatten(parameters[key]!, name: key, into: &fields)
        }
        for field in fields { append(field.value, name: field.name) }
    }

    /// Adds the leaf fields of `parameter`, named from `name`, to `fields`.
    private static func flatten(
        _ parameter: Parameter, name: String, into fields: inout [(name: String, value: String)]
    ) throws(SluiceError) {
        switch parameter {
        case .string(let value):
            fields.append((name, value))
        case .int(let value):
            fields.append((name, String(value)))
        case .double(let value):
            guard value.isFinite else {
                throw SluiceError(
                    .invalidParameters, "The number \(value) cannot be sent in a form.", keyPath: name)
            }
            fields.append((name, "\(value)"))
        case .bool(let value):
            fields.append((name, value ? "1" : "0"))
        case .null:
            fields.append((name, ""))
        case .array(let elements):
            for element in elements { try flatten(element, name: name + "[]", into: &fields) }
        case .dictionary(let dictionary):
            for key in dictionary.keys.sorted() {
                try flatten(dictionary[key]!, name: "\(name)[\(key)]", into: &fields)
            }
        case .set(let elements):
            // Each element flattens on its own; the groups are ordered by their text so the result
            // does not depend on the set's hashing order.
            var groups: [[(name: String, value: String)]] = []
            for element in elements {
                var group: [(name: String, value: String)] = []
                try flatten(element, name: name + "[]", into: &group)
                groups.append(group)
            }
            let ordered = groups.sorted { lhs, rhs in
                lhs.map { "\($0.name)=\($0.value)" }.lexicographicallyPrecedes(rhs.map { "\($0.name)=\($0.value)" })
            }
            for group in ordered { fields.append(contentsOf: group) }
        }
    }
}
