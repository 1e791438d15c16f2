/// Writes a `Parameter` tree as JSON text (RFC 8259), without `JSONSerialization` and its `Any`.
///
/// Strings are written as UTF-8 with `"`, `\` and control characters escaped (`/` is left alone);
/// numbers as Swift prints them (the shortest text that reads back as the same `Double`); a set as
/// an array in the order URL encoding writes it. NaN and infinity fail with the path of the value.
struct JSONWriter {
    /// Whether to indent with two spaces and put each element on its own line.
    var prettyPrinted: Bool
    /// Whether to write object keys in sorted order.
    var sortedKeys: Bool

    /// A NaN or an infinity, and where it is.
    struct NonFiniteNumber: Error {
        /// The value.
        var value: Parameter
        /// Its key path.
        var path: String
    }

    /// The JSON text of `value`; `path` is where `value` sits, for the error.
    func write(_ value: Parameter, at path: String = "") throws(NonFiniteNumber) -> [UInt8] {
        var output: [UInt8] = []
        try write(value, at: path, depth: 0, to: &output)
        return output
    }

    private func write(_ value: Parameter, at path: String, depth: Int, to output: inout [UInt8])
        throws(NonFiniteNumber)
    {
        switch value {
        case .string(let string):
            Self.writeString(string, to: &output)
        case .int(let int):
            output.append(contentsOf: String(int).utf8)
        case .double(let double):
            guard double.isFinite else { throw NonFiniteNumber(value: value, path: path) }
            output.append(contentsOf: double.description.utf8)
        case .bool(let bool):
            output.append(contentsOf: (bool ? "true" : "false").utf8)
        case .null:
            output.append(contentsOf: "null".utf8)
        case .array(let elements):
            try writeArray(elements, at: path, depth: depth, to: &output)
        case .set(let elements):
            try writeArray(Parameter.sortedForEncoding(elements), at: path, depth: depth, to: &output)
        case .dictionary(let dictionary):
            try writeObject(dictionary, at: path, depth: depth, to: &output)
        }
    }

    private func writeArray(_ elements: [Parameter], at path: String, depth: Int, to output: inout [UInt8])
        throws(NonFiniteNumber)
    {
        guard !elements.isEmpty else {
            output.append(contentsOf: "[]".utf8)
            return
        }
        output.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            newline(depth: depth + 1, to: &output)
            try write(element, at: ParameterKeyPath.appending(index: index, to: path), depth: depth + 1, to: &output)
        }
        newline(depth: depth, to: &output)
        output.append(UInt8(ascii: "]"))
    }

    private func writeObject(_ dictionary: [String: Parameter], at path: String, depth: Int, to output: inout [UInt8])
        throws(NonFiniteNumber)
    {
        guard !dictionary.isEmpty else {
            output.append(contentsOf: "{}".utf8)
            return
        }
        let keys = sortedKeys ? dictionary.keys.sorted() : Array(dictionary.keys)
        output.append(UInt8(ascii: "{"))
        for (index, key) in keys.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            newline(depth: depth + 1, to: &output)
            Self.writeString(key, to: &output)
            output.append(contentsOf: (prettyPrinted ? " : " : ":").utf8)
            let entryPath = ParameterKeyPath.appending(key: key, to: path)
            try write(dictionary[key]!, at: entryPath, depth: depth + 1, to: &output)
        }
        newline(depth: depth, to: &output)
        output.append(UInt8(ascii: "}"))
    }

    /// When pretty-printing, a line break and two spaces per level.
    private func newline(depth: Int, to output: inout [UInt8]) {
        guard prettyPrinted else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    /// A JSON string literal: UTF-8, with quotes, backslashes and control characters escaped.
    static func writeString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): output.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): output.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): output.append(contentsOf: #"\t"#.utf8)
            case 0x08: output.append(contentsOf: #"\b"#.utf8)
            case 0x0C: output.append(contentsOf: #"\f"#.utf8)
            case 0x00..<0x20:
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
