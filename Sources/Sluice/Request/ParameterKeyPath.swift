/// Key paths that name one value inside parameters, such as `user.scores[2]`, for the `keyPath` of
/// `.invalidParameters` errors.
///
/// Dictionary keys are joined with dots; array positions are written `[n]`; a set's elements are
/// numbered in their sorted order. A value at the root of a JSON array is `[n]` on its own.
package enum ParameterKeyPath {
    /// The path of the dictionary entry `key` below `path`.
    static func appending(key: String, to path: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    /// The path of the element at `index` below `path`.
    static func appending(index: Int, to path: String) -> String {
        "\(path)[\(index)]"
    }

    /// The path of an `Encodable` value's coding path: `user.scores[2]`.
    static func from(codingPath: [any CodingKey]) -> String {
        codingPath.reduce(into: "") { path, key in
            if let index = key.intValue {
                path = appending(index: index, to: path)
            } else {
                path = appending(key: key.stringValue, to: path)
            }
        }
    }
}

extension Parameter {
    /// The first value, in sorted-key order, for which `isOffending` holds, with its path; nil if none.
    ///
    /// Dictionaries are searched in sorted-key order and sets in their encoded order, so the error
    /// names the same value every time.
    func firstOffendingValue(at path: String, where isOffending: (Parameter) -> Bool) -> (Parameter, String)? {
        if isOffending(self) { return (self, path) }
        switch self {
        case .array(let elements):
            return Self.firstOffending(in: elements, at: path, where: isOffending)
        case .set(let elements):
            return Self.firstOffending(in: Self.sortedForEncoding(elements), at: path, where: isOffending)
        case .dictionary(let dictionary):
            return Self.firstOffending(in: dictionary, at: path, where: isOffending)
        case .string, .int, .double, .bool, .null:
            return nil
        }
    }

    /// The first offending value among `elements`, numbered from `path[0]`.
    package static func firstOffending(
        in elements: [Parameter], at path: String, where isOffending: (Parameter) -> Bool
    ) -> (Parameter, String)? {
        for (index, element) in elements.enumerated() {
            let elementPath = ParameterKeyPath.appending(index: index, to: path)
            if let found = element.firstOffendingValue(at: elementPath, where: isOffending) { return found }
        }
        return nil
    }

    /// The first offending value among the entries of `dictionary`, in sorted-key order.
    package static func firstOffending(
        in dictionary: [String: Parameter], at path: String, where isOffending: (Parameter) -> Bool
    ) -> (Parameter, String)? {
        for key in dictionary.keys.sorted() {
            let entryPath = ParameterKeyPath.appending(key: key, to: path)
            if let found = dictionary[key]!.firstOffendingValue(at: entryPath, where: isOffending) { return found }
        }
        return nil
    }

    /// Whether this value is, or holds at any depth, an infinite or NaN number.
    var containsNonFiniteNumber: Bool {
        switch self {
        case .double(let value): return !value.isFinite
        case .array(let elements): return elements.contains(where: \.containsNonFiniteNumber)
        case .set(let elements): return elements.contains(where: \.containsNonFiniteNumber)
        case .dictionary(let dictionary): return dictionary.values.contains(where: \.containsNonFiniteNumber)
        case .string, .int, .bool, .null: return false
        }
    }

    /// Whether this is a NaN or an infinity, which neither JSON nor a URL can carry as a number.
    var isNonFiniteNumber: Bool {
        if case .double(let value) = self { return !value.isFinite }
        return false
    }

    /// Fails with `.invalidParameters` naming the first NaN or infinity in `parameters`, if any.
    static func rejectNonFiniteNumbers(in parameters: [String: Parameter], encoding: String) throws(SluiceError) {
        // Looked for without paths first: finding where takes a path string per value, and sets
        // sorted as they are encoded, for the rare parameters that have such a number.
        guard parameters.values.contains(where: \.containsNonFiniteNumber),
            let (value, path) = firstOffending(in: parameters, at: "", where: \.isNonFiniteNumber)
        else { return }
        throw nonFiniteError(value, at: path, encoding: encoding)
    }

    /// The error for a NaN or an infinity found at `path`.
    static func nonFiniteError(_ value: Parameter, at path: String, encoding: String) -> SluiceError {
        let number = if case .double(let double) = value { "\(double)" } else { "\(value)" }
        return SluiceError(
            .invalidParameters,
            "The parameter \(path.isEmpty ? "at the root" : path) is \(number), which \(encoding) cannot carry; "
                + "nothing was sent.",
            keyPath: path)
    }

    /// The elements of a set in the order every encoding writes them: by their encoded query text.
    package static func sortedForEncoding(_ elements: Set<Parameter>) -> [Parameter] {
        let serializer = QueryStringSerializer(arrayEncoding: .brackets, boolEncoding: .numeric)
        return elements.map { (element: $0, key: serializer.sortKey(for: $0)) }
            .sorted { $0.key < $1.key }
            .map(\.element)
    }
}
