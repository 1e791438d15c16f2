/// The value of a response that has no body: decode `Empty.self` from a 204, a 205, a HEAD or an
/// empty 200 instead of failing.
public struct Empty: Codable, Sendable, Equatable, Hashable {
    /// The one empty value.
    public static let value = Empty()

    /// Creates the empty value.
    public init() {}
}

/// A type that has a value for a response without a body (`Empty`, and any `Optional`, as nil).
public protocol EmptyResponse {
    /// The value an empty body decodes to.
    static func emptyValue() -> Self
}

extension Empty: EmptyResponse {
    /// `Empty()`.
    public static func emptyValue() -> Empty { Empty() }
}

extension Optional: EmptyResponse {
    /// `nil`.
    public static func emptyValue() -> Wrapped? { nil }
}
