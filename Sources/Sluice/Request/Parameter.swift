import FoundationEssentials

/// A request parameter value: what `client.get(path, parameters: ["expand": ["teams"], "page": 2])`
/// is made of. A Sendable, literal-friendly tree, so parameters can cross threads safely.
public enum Parameter: Sendable, Hashable {
    /// A string.
    case string(String)
    /// An integer.
    case int(Int)
    /// A floating-point number.
    case double(Double)
    /// A Boolean, encoded as configured (`1`/`0` or `true`/`false` in URLs).
    case bool(Bool)
    /// No value: a bare key in URLs, `null` in JSON.
    case null
    /// An ordered list.
    case array([Parameter])
    /// A dictionary (keys are sorted when URL-encoded).
    case dictionary([String: Parameter])
    /// A set of values (sorted when URL-encoded).
    case set(Set<Parameter>)
}

/// The parameters of a request.
public typealias Parameters = [String: Parameter]

extension Parameter: ExpressibleByStringLiteral {
    /// A string parameter from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension Parameter: ExpressibleByIntegerLiteral {
    /// An integer parameter from a literal.
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension Parameter: ExpressibleByFloatLiteral {
    /// A floating-point parameter from a literal.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension Parameter: ExpressibleByBooleanLiteral {
    /// A Boolean parameter from a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension Parameter: ExpressibleByNilLiteral {
    /// The null parameter from `nil`.
    public init(nilLiteral: ()) { self = .null }
}

extension Parameter: ExpressibleByArrayLiteral {
    /// An array parameter from a literal.
    public init(arrayLiteral elements: Parameter...) { self = .array(elements) }
}

extension Parameter: ExpressibleByDictionaryLiteral {
    /// A dictionary parameter from a literal.
    public init(dictionaryLiteral elements: (String, Parameter)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

/// Puts parameters into a request: into its URL's query, or into its body with a content type.
///
/// Built-in encodings: `URLEncoding` (query string or form body, with AFNetworking's nested
/// `key[sub]=value` rules), `JSONEncoding` and `PropertyListEncoding`. Write your own by conforming.
public protocol ParameterEncoding: Sendable {
    /// Returns `request` with `parameters` encoded into it, or fails with `.invalidParameters`.
    func encode(_ request: Request, with parameters: Parameters) throws(SluiceError) -> Request
}
