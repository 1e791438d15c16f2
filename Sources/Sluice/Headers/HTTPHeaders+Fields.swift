import FoundationEssentials

// Headers written as a list of fields, as Alamofire's `HTTPHeaders` are:
//
//     let headers: HTTPHeaders = [.bearer(token), .accept("application/json"), .userAgent("app/1.0")]
//     let custom: HTTPHeaders = [.init(name: "X-Trace", value: "on"), .contentType("text/csv")]

extension HTTPHeaders: ExpressibleByArrayLiteral {
    /// Creates headers from fields, in order (a name may repeat).
    public init(arrayLiteral fields: HTTPHeaders.Field...) {
        self.init(fields)
    }
}

extension HTTPHeaders.Field {
    /// `Accept: value`, e.g. `.accept("application/json")`.
    public static func accept(_ value: String) -> HTTPHeaders.Field {
        HTTPHeaders.Field(name: "Accept", value: value)
    }

    /// `Accept-Encoding: value` (Sluice asks for every coding libcurl decodes by default).
    public static func acceptEncoding(_ value: String) -> HTTPHeaders.Field {
        HTTPHeaders.Field(name: "Accept-Encoding", value: value)
    }

    /// `Accept-Language: value`, e.g. `.acceptLanguage("fr-CH, fr;q=0.9, en;q=0.8")`.
    public static func acceptLanguage(_ value: String) -> HTTPHeaders.Field {
        HTTPHeaders.Field(name: "Accept-Language", value: value)
    }

    /// `Content-Type: value`, e.g. `.contentType("application/json")`.
    public static func contentType(_ value: String) -> HTTPHeaders.Field {
        HTTPHeaders.Field(name: "Content-Type", value: value)
    }

    /// `User-Agent: value`.
    public static func userAgent(_ value: String) -> HTTPHeaders.Field {
        HTTPHeaders.Field(name: "User-Agent", value: value)
    }

    /// `Authorization: value`, sent as given (see `bearer(_:)` and
    /// `authorization(basicUser:password:)` for the usual schemes).
    public static func authorization(_ value: String) -> HTTPHeaders.Field {
        HTTPHeaders.Field(name: Authorization.headerName, value: value)
    }
}
