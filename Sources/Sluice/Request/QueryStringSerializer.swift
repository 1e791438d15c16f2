/// One `key=value` pair of a query string before escaping; a nil value is a bare key.
struct QueryPair: Equatable {
    /// The key with its brackets, e.g. `user[tags][]`.
    var key: String
    /// The value, or nil for a null parameter (written as the bare key).
    var value: String?

    /// The pair escaped and joined: `user%5Btags%5D%5B%5D=swift`, or the bare escaped key.
    var escaped: String {
        let key = PercentEscaping.escapeQueryComponent(key)
        guard let value else { return key }
        return "\(key)=\(PercentEscaping.escapeQueryComponent(value))"
    }
}

/// Flattens parameters into query pairs, as AFNetworking's `AFQueryStringPairsFromKeyAndValue` did.
///
/// A dictionary becomes `key[sub]=value`, its keys sorted (the top level too); an array becomes
/// `key[]=value`, `key=value` or `key[0]=value` as `arrayEncoding` says; a set is written like an
/// array, its elements sorted by their encoded text; null becomes the bare key; a Boolean becomes
/// `1`/`0` or `true`/`false`. Empty arrays, sets and dictionaries write nothing.
struct QueryStringSerializer {
    /// How arrays and sets are written.
    var arrayEncoding: URLEncoding.ArrayEncoding
    /// How Booleans are written.
    var boolEncoding: URLEncoding.BoolEncoding

    /// The escaped query string, pairs joined with `&`.
    func string(from parameters: [String: Parameter]) -> String {
        // Every pair escaped straight into one buffer: no string per key, value and pair.
        var bytes: [UInt8] = []
        for (index, pair) in pairs(from: parameters).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "&")) }
            PercentEscaping.appendEscaped(pair.key, to: &bytes)
            guard let value = pair.value else { continue }
            bytes.append(UInt8(ascii: "="))
            PercentEscaping.appendEscaped(value, to: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The unescaped pairs, in the order they are written.
    func pairs(from parameters: [String: Parameter]) -> [QueryPair] {
        var pairs: [QueryPair] = []
        for key in parameters.keys.sorted() {
            appendPairs(key: key, value: parameters[key]!, to: &pairs)
        }
        return pairs
    }

    /// Appends the pairs of `value` under `key`.
    func appendPairs(key: String, value: Parameter, to pairs: inout [QueryPair]) {
        switch value {
        case .dictionary(let dictionary):
            for subkey in dictionary.keys.sorted() {
                appendPairs(key: "\(key)[\(subkey)]", value: dictionary[subkey]!, to: &pairs)
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                appendPairs(key: elementKey(key, index: index), value: element, to: &pairs)
            }
        case .set(let elements):
            for (index, element) in Parameter.sortedForEncoding(elements).enumerated() {
                appendPairs(key: elementKey(key, index: index), value: element, to: &pairs)
            }
        case .null:
            pairs.append(QueryPair(key: key, value: nil))
        case .string(let string):
            pairs.append(QueryPair(key: key, value: string))
        case .int(let int):
            pairs.append(QueryPair(key: key, value: String(int)))
        case .double(let double):
            pairs.append(QueryPair(key: key, value: double.description))
        case .bool(let bool):
            pairs.append(QueryPair(key: key, value: text(for: bool)))
        }
    }

    /// The key of an array element: `key[]`, `key` or `key[index]`.
    private func elementKey(_ key: String, index: Int) -> String {
        switch arrayEncoding {
        case .brackets: return "\(key)[]"
        case .noBrackets: return key
        case .indexInBrackets: return "\(key)[\(index)]"
        }
    }

    /// A Boolean as text.
    private func text(for bool: Bool) -> String {
        switch boolEncoding {
        case .numeric: return bool ? "1" : "0"
        case .literal: return bool ? "true" : "false"
        }
    }

    /// What a set element is sorted by: its encoded text, then (for elements that encode alike, such
    /// as `1`, `"1"` and `true`) a description that tells types apart, so the order never varies.
    func sortKey(for element: Parameter) -> SetSortKey {
        var pairs: [QueryPair] = []
        appendPairs(key: "", value: element, to: &pairs)
        return SetSortKey(encoded: pairs.map(\.escaped).joined(separator: "&"), typed: element.canonicalText)
    }

    /// The order of a set's elements.
    struct SetSortKey: Comparable {
        /// The element's query text under an empty key.
        var encoded: String
        /// The element's `canonicalText`, to break ties.
        var typed: String

        static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.encoded, lhs.typed) < (rhs.encoded, rhs.typed)
        }
    }
}

extension Parameter {
    /// A text that differs for every distinct value and never depends on hashing order.
    var canonicalText: String {
        switch self {
        case .string(let string): return "s\(string.debugDescription)"
        case .int(let int): return "i\(int)"
        case .double(let double): return "d\(double)"
        case .bool(let bool): return "b\(bool)"
        case .null: return "n"
        case .array(let elements): return "[\(elements.map(\.canonicalText).joined(separator: ","))]"
        case .set(let elements): return "<\(elements.map(\.canonicalText).sorted().joined(separator: ","))>"
        case .dictionary(let dictionary):
            let entries = dictionary.keys.sorted().map { "\($0.debugDescription):\(dictionary[$0]!.canonicalText)" }
            return "{\(entries.joined(separator: ","))}"
        }
    }
}
