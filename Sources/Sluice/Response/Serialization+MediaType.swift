import FoundationEssentials

extension Serialization {
    /// A parsed Content-Type: `type/subtype` in lower case, and its parameters (`charset`).
    package struct MediaType: Sendable, Equatable {
        /// The top-level type, e.g. `application`.
        package let type: String
        /// The subtype, e.g. `json` or `vnd.api+json`.
        package let subtype: String
        /// The parameters, names in lower case, values unquoted.
        package let parameters: [String: String]

        /// Parses `text/plain; charset="utf-8"`; nil when there is no `type/subtype`.
        package init?(_ header: String) {
            // ASCII text read from its bytes (see `Serialization+MediaTypeASCII.swift`), any other by characters.
            guard let parsed = Self.parseASCII(header) ?? Self.parseCharacters(header) else { return nil }
            self = parsed
        }

        /// A media type with these parts, already lowercased and unquoted.
        init(type: String, subtype: String, parameters: [String: String]) {
            self.type = type
            self.subtype = subtype
            self.parameters = parameters
        }

        /// `init(_:)` character by character, for any text.
        static func parseCharacters(_ header: String) -> MediaType? {
            let parts = header.split(separator: ";", omittingEmptySubsequences: false)
            let essence = parts[0].trimmingWhitespace().lowercased()
            let halves = essence.split(separator: "/", omittingEmptySubsequences: false)
            guard halves.count == 2, !halves[0].isEmpty, !halves[1].isEmpty else { return nil }
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
            return MediaType(type: String(halves[0]), subtype: String(halves[1]), parameters: parameters)
        }

        /// `type/subtype`.
        var essence: String { "\(type)/\(subtype)" }

        /// Whether `pattern` (`*/*`, `text/*`, `*/*+json` or an exact type) accepts this type.
        package func matches(_ pattern: String) -> Bool {
            let pattern = pattern.lowercased()
            if pattern == "*/*" { return true }
            if pattern.hasPrefix("*/*+") { return subtype.hasSuffix(String(pattern.dropFirst(3))) }
            if pattern.hasSuffix("/*") { return type == String(pattern.dropLast(2)) }
            return essence == pattern
        }
    }
}
