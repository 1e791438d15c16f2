import Sluice
import SluiceFormats

/// Comparison of Sluice's `JSONValue`, read by `JSONDecoder`, with the parameters it was written from.
extension JSONValue {
    /// Whether this is what `parameter` should be written as (a set in any order).
    func matches(_ parameter: Parameter) -> Bool {
        switch (self, parameter) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .int(let b)): return a == Double(b)
        case (.number(let a), .double(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.matches($1) }
        case (.array(let a), .set(let b)):
            var remaining = Array(b)
            for element in a {
                guard let index = remaining.firstIndex(where: { element.matches($0) }) else { return false }
                remaining.remove(at: index)
            }
            return remaining.isEmpty
        case (.object(let a), .dictionary(let b)):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map { value.matches($0) } ?? false }
        default: return false
        }
    }
}
