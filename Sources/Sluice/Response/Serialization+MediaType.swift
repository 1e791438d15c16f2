import FoundationEssentials

extension Serialization {
    /// A parsed Content-Type: `type/subtype` in lower case, and its parameters (`charset`).
    struct MediaType: Sendable, Equatable {
        /// The top-level type, e.g. `application`.
        let type: String
        /// The subtype, e.g. `json` or `vnd.api+json`.
        let subtype: String
        /// The parameters, names in lower case, values unquoted.
        let parameters: [String: String]

        /// Parses `text/plain; charset="utf-8"`; nil when there is no `type/subtype`.
        init?(_ header: String) {
            let parts = header.split(separator: ";", omittingEmptySubsequences: false)
            let essence = parts[0].trimmingWhitespace().lowercased()
            let halves = essence.split(separator: "/", omittingEmptySubsequences: false)
            guard halves.count == 2, !halves[0].isEmpty, !halves[1].isEmpty else { return nil }
            type = String(halves[0])
            subtype = String(halves[1])
            var parameters: [String: String] = [:]
            for part in parts.dropFirst() {
                guard let equals = part.firstIndex(of: "=") else { continue }
                let name = part[..<equals].trimmingWhitespace().lowercased()
                var value = part[part.index(after: equals)...].trimmingWhitespace()
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast())
                }
                parameters[name] = value
            }
            self.parameters = parameters
        }

        /// `type/subtype`.
        var essence: String { "\(type)/\(subtype)" }

        /// Whether `pattern` (`*/*`, `text/*`, `*/*+json` or an exact type) accepts this type.
        func matches(_ pattern: String) -> Bool {
            let pattern = pattern.lowercased()
            if pattern == "*/*" { return true }
            if pattern.hasPrefix("*/*+") { return subtype.hasSuffix(String(pattern.dropFirst(3))) }
            if pattern.hasSuffix("/*") { return type == String(pattern.dropLast(2)) }
            return essence == pattern
        }
    }
}
