import Foundation

/// Percent-encoding for the URLs `MockServer` builds and the requests it parses.
enum RoutePercentEncoding {
    /// RFC 3986 unreserved characters: the only ones left as they are.
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// One path segment, with `/` encoded too.
    static func segment(_ string: String) -> String {
        string.addingPercentEncoding(withAllowedCharacters: unreserved) ?? string
    }

    /// A path, segment by segment, keeping its slashes.
    static func path(_ string: String) -> String {
        string.split(separator: "/", omittingEmptySubsequences: false).map { segment(String($0)) }.joined(
            separator: "/")
    }

    /// A query string from ordered pairs.
    static func query(_ items: [(String, String)]) -> String {
        items.map { "\(segment($0.0))=\(segment($0.1))" }.joined(separator: "&")
    }

    /// Decodes percent escapes; with `plusIsSpace`, `+` first becomes a space (form encoding).
    static func decode(_ string: Substring, plusIsSpace: Bool = false) -> String {
        let text = plusIsSpace ? string.replacingOccurrences(of: "+", with: " ") : String(string)
        return text.removingPercentEncoding ?? text
    }

    /// Parses `a=1&b=2&a=3` into `["a": ["1", "3"], "b": ["2"]]`, decoding `+` as a space.
    static func parseQuery(_ query: String?) -> [String: [String]] {
        var result: [String: [String]] = [:]
        guard let query, !query.isEmpty else { return result }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0], plusIsSpace: true)
            let value = parts.count > 1 ? decode(parts[1], plusIsSpace: true) : ""
            result[name, default: []].append(value)
        }
        return result
    }

    /// Ordered query pairs, decoding `+` as a space.
    static func parseQueryPairs(_ query: String?) -> [(String, String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0], plusIsSpace: true), parts.count > 1 ? decode(parts[1], plusIsSpace: true) : "")
        }
    }

    /// Splits a request target into its path and query, accepting the absolute form (`http://host/path?q`).
    static func splitTarget(_ target: String) -> (path: String, query: String?) {
        var rest = Substring(target)
        if let schemeEnd = rest.range(of: "://") {
            let afterScheme = rest[schemeEnd.upperBound...]
            rest = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }).map { afterScheme[$0...] } ?? "/"
        }
        if let mark = rest.firstIndex(of: "?") {
            return (String(rest[..<mark]), String(rest[rest.index(after: mark)...]))
        }
        return (String(rest), nil)
    }
}
