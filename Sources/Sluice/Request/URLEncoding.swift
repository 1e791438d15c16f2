import FoundationEssentials

/// Encodes parameters as a URL query string or an `application/x-www-form-urlencoded` body, with
/// AFNetworking's rules for nested values.
///
///     ["user": ["name": "Ada", "tags": ["a", "b"]], "page": 2, "draft": nil]
///     // draft&page=2&user%5Bname%5D=Ada&user%5Btags%5D%5B%5D=a&user%5Btags%5D%5B%5D=b
///
/// Dictionaries become `key[sub]=value` with their keys sorted (the top level too), arrays
/// `key[]=value` (see `ArrayEncoding`), sets are written like arrays in sorted order, null is the bare
/// key, and Booleans are `1`/`0` (see `BoolEncoding`). Keys and values are percent-escaped for a query
/// (RFC 3986), brackets included, keeping `?` and `/`; a space is `%20`. NaN and infinity are refused
/// with `.invalidParameters`, since a server would read them as text.
///
/// For GET, HEAD and DELETE (see `queryMethods`) the query is appended to the URL's own query with `&`;
/// other methods send it as a form body, setting `Content-Type: application/x-www-form-urlencoded`
/// unless the request already has a Content-Type. Empty parameters leave a URL as it is, and make
/// an empty form body.
public struct URLEncoding: ParameterEncoding {
    /// Where the parameters go.
    public var destination: Destination
    /// How array and set elements are written.
    public var arrayEncoding: ArrayEncoding
    /// How Booleans are written.
    public var boolEncoding: BoolEncoding
    /// The methods whose parameters go into the query when the destination is `.methodDependent`.
    public var queryMethods: Set<HTTPMethod>
    /// A serializer that replaces the default query string, or nil for the default.
    public var querySerializer: QuerySerializer?

    /// The methods that carry parameters in the query by default: GET, HEAD and DELETE.
    public static let defaultQueryMethods: Set<HTTPMethod> = [.get, .head, .delete]

    /// The `Content-Type` of a form body.
    public static let formContentType = "application/x-www-form-urlencoded"

    /// Creates a URL encoding.
    public init(
        destination: Destination = .methodDependent,
        arrayEncoding: ArrayEncoding = .brackets,
        boolEncoding: BoolEncoding = .numeric,
        queryMethods: Set<HTTPMethod> = URLEncoding.defaultQueryMethods,
        querySerializer: QuerySerializer? = nil
    ) {
        self.destination = destination
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
        self.queryMethods = queryMethods
        self.querySerializer = querySerializer
    }

    /// Query for GET, HEAD and DELETE, form body for the other methods; brackets and `1`/`0`.
    public static var `default`: URLEncoding { URLEncoding() }

    /// Always the URL's query, whatever the method.
    public static var queryString: URLEncoding { URLEncoding(destination: .queryString) }

    /// Always a form body, whatever the method.
    public static var httpBody: URLEncoding { URLEncoding(destination: .httpBody) }

    /// The escaped query string for `parameters`, without `?`: `a=1&b%5B%5D=x` (NaN and infinity are
    /// written as `nan` and `inf`, which `encode` refuses).
    public static func queryString(
        _ parameters: Parameters, arrayEncoding: ArrayEncoding = .brackets, boolEncoding: BoolEncoding = .numeric
    ) -> String {
        QueryStringSerializer(arrayEncoding: arrayEncoding, boolEncoding: boolEncoding).string(from: parameters)
    }

    /// Returns `request` with `parameters` in its query or as a form body.
    public func encode(_ request: Request, with parameters: Parameters) throws(SluiceError) -> Request {
        let query = try query(for: parameters)
        var request = request
        if putsParametersInQuery(request.method) {
            guard !query.isEmpty else { return request }
            request.url = try Self.url(request.url, appendingQuery: query)
        } else {
            if !request.headers.contains("Content-Type") {
                request.headers["Content-Type"] = Self.formContentType
            }
            request.body = .data(Data(query.utf8))
        }
        return request
    }

    /// The query string for `parameters`, by the custom serializer or by the default rules.
    func query(for parameters: Parameters) throws(SluiceError) -> String {
        if let querySerializer { return try querySerializer(parameters) }
        try Parameter.rejectNonFiniteNumbers(in: parameters, encoding: "URL encoding")
        return Self.queryString(parameters, arrayEncoding: arrayEncoding, boolEncoding: boolEncoding)
    }

    /// Whether parameters of a request with `method` go into its query.
    func putsParametersInQuery(_ method: HTTPMethod) -> Bool {
        switch destination {
        case .methodDependent: return queryMethods.contains(method)
        case .queryString: return true
        case .httpBody: return false
        }
    }

    /// `url` with `query` appended to its query (after `&` when it has one), before any fragment.
    static func url(_ url: URL, appendingQuery query: String) throws(SluiceError) -> URL {
        let text = url.absoluteString
        let combined = asciiAppending(query, to: text) ?? characterAppending(query, to: text)
        guard let result = URL(string: combined) else {
            throw SluiceError(
                .invalidParameters,
                "The query \(query.debugDescription) cannot be added to \(text): it is not valid in a URL "
                    + "(a custom query serializer must return escaped text).")
        }
        return result
    }

    /// `text` with `query` added before its fragment, after `?` or `&` as needed, read from its
    /// bytes: for ASCII text (as a URL's usually is), where each byte is a character; nil otherwise.
    static func asciiAppending(_ query: String, to text: String) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            if bytes.contains(where: { $0 >= 0x80 }) { return nil }
            let fragmentStart = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
            let beforeFragment = UnsafeBufferPointer(rebasing: bytes[..<fragmentStart])
            let separator: String
            if let mark = beforeFragment.firstIndex(of: UInt8(ascii: "?")) {
                let existingIsEmpty = mark + 1 == fragmentStart
                separator = existingIsEmpty || beforeFragment.last == UInt8(ascii: "&") ? "" : "&"
            } else {
                separator = "?"
            }
            var combined: [UInt8] = []
            combined.reserveCapacity(bytes.count + separator.utf8.count + query.utf8.count)
            combined.append(contentsOf: beforeFragment)
            combined.append(contentsOf: separator.utf8)
            combined.append(contentsOf: query.utf8)
            combined.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[fragmentStart...]))
            return String(decoding: combined, as: UTF8.self)
        }
    }

    /// `asciiAppending(_:to:)` character by character, for any text.
    static func characterAppending(_ query: String, to text: String) -> String {
        let fragmentStart = text.firstIndex(of: "#") ?? text.endIndex
        let beforeFragment = text[..<fragmentStart]
        let separator: String
        if let mark = beforeFragment.firstIndex(of: "?") {
            let existing = beforeFragment[beforeFragment.index(after: mark)...]
            separator = existing.isEmpty || existing.hasSuffix("&") ? "" : "&"
        } else {
            separator = "?"
        }
        return String(beforeFragment + separator + query + text[fragmentStart...])
    }
}
