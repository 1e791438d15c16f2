import FoundationEssentials

/// Credentials for the `Authorization` header.
///
/// ```swift
/// request.headers.setAuthorization(.basic(user: "ada", password: "s3cret"))
/// request.headers.add(.bearer(token))          // the same, as a field
/// request.headers.setAuthorization(nil)        // clears it: removes the header
/// ```
///
/// Clearing authorization means removing the header: `setAuthorization(nil)` or
/// `headers.remove(name: "Authorization")`. A value containing CR, LF or NUL is refused when the
/// request is prepared, so credentials cannot inject headers.
public enum Authorization: Sendable, Hashable, CustomStringConvertible {
    /// HTTP Basic (RFC 7617): `Basic` and the Base64 of `user:password` in UTF-8. A colon in the
    /// user name cannot be told apart from the separator by the server, so avoid one.
    case basic(user: String, password: String)
    /// A bearer token (RFC 6750): `Bearer token`, the token sent as given.
    case bearer(String)

    /// The header's name, `Authorization`.
    public static let headerName = "Authorization"

    /// The value of the `Authorization` header, e.g. `Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==`.
    public var headerValue: String {
        switch self {
        case .basic(let user, let password):
            return "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        case .bearer(let token):
            return "Bearer \(token)"
        }
    }

    /// The `Authorization` header field.
    public var field: HTTPHeaders.Field { HTTPHeaders.Field(name: Self.headerName, value: headerValue) }

    /// The scheme and `***`, never the secret, so credentials do not end up in logs.
    public var description: String {
        switch self {
        case .basic(let user, _): return "Basic \(user):***"
        case .bearer: return "Bearer ***"
        }
    }
}

extension HTTPHeaders.Field {
    /// An `Authorization: Basic …` field for `user` and `password`.
    public static func authorization(basicUser user: String, password: String) -> HTTPHeaders.Field {
        Authorization.basic(user: user, password: password).field
    }

    /// An `Authorization: Bearer …` field for `token`.
    public static func bearer(_ token: String) -> HTTPHeaders.Field {
        Authorization.bearer(token).field
    }
}

extension HTTPHeaders {
    /// An `Authorization: Basic …` field for `user` and `password`.
    public static func authorization(basicUser user: String, password: String) -> HTTPHeaders.Field {
        Authorization.basic(user: user, password: password).field
    }

    /// An `Authorization: Bearer …` field for `token`.
    public static func bearer(_ token: String) -> HTTPHeaders.Field {
        Authorization.bearer(token).field
    }

    /// The `Authorization` header, replaced by `authorization`'s, or removed when it is nil.
    public mutating func setAuthorization(_ authorization: Authorization?) {
        self[Authorization.headerName] = authorization?.headerValue
    }

    /// Appends a field, keeping any existing ones of the same name.
    public mutating func add(_ field: HTTPHeaders.Field) {
        add(name: field.name, value: field.value)
    }
}
