import Foundation
import Sluice

/// An independent reader of the query strings `URLEncoding` writes: parses `a%5Bb%5D%5B%5D=c&…` back
/// into a parameter tree of strings, for the round-trip tests and the query fuzz target (one copy,
/// shared by both).
package enum QueryDecoder {
    /// A tree being rebuilt.
    package indirect enum Node {
        case leaf(String?)
        case dictionary([String: Node])
        case list([Node])
        case indexed([Int: Node])
    }

    /// The characters a query component may keep: RFC 3986 unreserved, `?` and `/`.
    package static let allowedInQuery = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~?/%=&")

    private static let allowedInComponent = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~?/")

    /// Foundation's escaping of a query key or value, as the expected result.
    package static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowedInComponent)!
    }

    /// The parameters of `query`: values as strings, bare keys as null, `[]` or `[n]` as arrays.
    package static func decode(_ query: String, arrayEncoding: URLEncoding.ArrayEncoding) -> Parameter {
        var root: Node? = .dictionary([:])
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0]).removingPercentEncoding!
            let value = parts.count > 1 ? String(parts[1]).removingPercentEncoding! : nil
            insert(value, at: segments(of: key)[...], into: &root, indexed: arrayEncoding == .indexInBrackets)
        }
        return finish(root!)
    }

    /// `a[b][]` → `["a", "b", ""]`, read scalar by scalar: a bracket may share a grapheme cluster with
    /// the character before or after it (a prepended mark, a combining mark).
    package static func segments(of key: String) -> [String] {
        var segments: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in key.unicodeScalars {
            switch scalar {
            case "[":
                segments.append(String(current))
                current = String.UnicodeScalarView()
            case "]":
                continue
            default:
                current.append(scalar)
            }
        }
        segments.append(String(current))
        return segments
    }

    package static func insert(_ value: String?, at path: ArraySlice<String>, into node: inout Node?, indexed: Bool) {
        guard let segment = path.first else {
            node = .leaf(value)
            return
        }
        let rest = path.dropFirst()
        if segment.isEmpty {
            var list: [Node] = []
            if case .list(let existing) = node { list = existing }
            var child: Node?
            insert(value, at: rest, into: &child, indexed: indexed)
            list.append(child!)
            node = .list(list)
        } else if indexed, segment.isASCIIDigits, let index = Int(segment) {
            var elements: [Int: Node] = [:]
            if case .indexed(let existing) = node { elements = existing }
            var child = elements[index]
            insert(value, at: rest, into: &child, indexed: indexed)
            elements[index] = child
            node = .indexed(elements)
        } else {
            var entries: [String: Node] = [:]
            if case .dictionary(let existing) = node { entries = existing }
            var child = entries[segment]
            insert(value, at: rest, into: &child, indexed: indexed)
            entries[segment] = child
            node = .dictionary(entries)
        }
    }

    package static func finish(_ node: Node) -> Parameter {
        switch node {
        case .leaf(let value): return value.map(Parameter.string) ?? .null
        case .dictionary(let entries): return .dictionary(entries.mapValues(finish))
        case .list(let elements): return .array(elements.map(finish))
        case .indexed(let elements):
            guard elements.keys.sorted() == Array(0..<elements.count) else {
                return .dictionary(Dictionary(uniqueKeysWithValues: elements.map { ("#\($0.key)", finish($0.value)) }))
            }
            return .array(elements.keys.sorted().map { finish(elements[$0]!) })
        }
    }

    /// What `decode` should give for `parameter`: scalars as text, sets as arrays in encoded order.
    package static func expectedDecoding(of parameter: Parameter, boolEncoding: URLEncoding.BoolEncoding) -> Parameter {
        switch parameter {
        case .string, .null: return parameter
        case .int(let int): return .string(String(int))
        case .double(let double): return .string("\(double)")
        case .bool(let bool):
            switch boolEncoding {
            case .numeric: return .string(bool ? "1" : "0")
            case .literal: return .string(bool ? "true" : "false")
            }
        case .array(let elements): return .array(elements.map { expectedDecoding(of: $0, boolEncoding: boolEncoding) })
        case .set(let elements):
            let texts = elements.map { expectedDecoding(of: $0, boolEncoding: boolEncoding) }
            return .array(texts.sorted { escapedText($0) < escapedText($1) })
        case .dictionary(let entries):
            return .dictionary(entries.mapValues { expectedDecoding(of: $0, boolEncoding: boolEncoding) })
        }
    }

    private static func escapedText(_ parameter: Parameter) -> String {
        if case .string(let text) = parameter { return "=" + escape(text) }
        return ""
    }
}

extension String {
    /// Whether this is a non-empty run of ASCII digits, like an array index.
    package var isASCIIDigits: Bool { !isEmpty && unicodeScalars.allSatisfy { ("0"..."9").contains($0) } }
}
