import FoundationEssentials

/// What a record of a request leaves out: the values of credential headers and of secret query
/// items, and the URL's password, each replaced by `REDACTED`.
///
/// Shared by everything that writes requests down for somebody else to read (spans, HAR files,
/// recordings), so that they agree on what a secret is.
///
///     let safe = Redaction.default.url(request.url)   // https://user:REDACTED@host/?sig=REDACTED
public struct Redaction: Sendable {
    /// The headers whose values are replaced (names in any case).
    public var headers: Set<String>
    /// The query items whose values are replaced (names in any case).
    public var queryItems: Set<String>

    /// What replaces a secret.
    public static let placeholder = "REDACTED"

    /// The credential headers (`LoggingInterceptor.credentialHeaders`), the API-key and token
    /// headers (`RedirectPolicy.secretHeaders`), and the query items that carry signatures, keys
    /// and tokens in signed URLs (AWS, Google Cloud, Azure) and in APIs that take a key.
    public static let `default` = Redaction(
        headers: LoggingInterceptor.credentialHeaders.union(RedirectPolicy.secretHeaders),
        queryItems: [
            "access_token", "api_key", "apikey", "key", "token", "sig", "signature", "password", "client_secret",
            "AWSAccessKeyId", "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "X-Goog-Signature",
            "X-Goog-Credential",
        ])

    /// Redacts the values of `headers` and of `queryItems`.
    public init(headers: Set<String>, queryItems: Set<String>) {
        self.headers = Set(headers.map { $0.lowercased() })
        self.queryItems = Set(queryItems.map { $0.lowercased() })
    }

    /// Whether the header `name`'s value is a secret.
    public func isSecret(header name: String) -> Bool {
        headers.contains(name.lowercased())
    }

    /// `headers`, with the values of secret ones replaced.
    public func headers(_ headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(
            headers.map { field in
                isSecret(header: field.name) ? HTTPHeaders.Field(name: field.name, value: Self.placeholder) : field
            })
    }

    /// The text of `url` with its password and the values of secret query items replaced.
    public func url(_ url: URL) -> String {
        let text = url.absoluteString
        guard var components = URLComponents(string: text) else { return text }
        if components.percentEncodedPassword != nil { components.percentEncodedPassword = Self.placeholder }
        if let items = components.percentEncodedQueryItems,
            items.contains(where: { queryItems.contains($0.name.lowercased()) && $0.value != nil })
        {
            components.percentEncodedQueryItems = items.map { item in
                guard queryItems.contains(item.name.lowercased()), item.value != nil else { return item }
                return URLQueryItem(name: item.name, value: Self.placeholder)
            }
        }
        return components.string ?? text
    }
}
