import FoundationEssentials

/// One stored response: what the cache needs to answer a request with it, to judge its freshness
/// and to validate it.
struct CacheEntry: Sendable, Equatable {
    /// The method and URL it answers (`CacheKey.primary`).
    var primaryKey: String
    /// The request's values of the header fields the response's `Vary` names (lowercased names, in
    /// the order `Vary` lists them; nil for a field the request did not have).
    var variant: [VaryField]
    let status: Int
    /// The response's fields; changing them (a 304's update) derives `facts` again.
    var headers: HTTPHeaders { didSet { facts = Facts(headers: headers, status: status, responseTime: responseTime) } }
    var httpVersion: HTTPVersion
    var body: Data
    /// When the request that fetched it was sent, and when its response arrived, by the cache's
    /// clock (RFC 9111 §4.2.3's `request_time` and `response_time`).
    var requestTime: Date
    var responseTime: Date {
        didSet { facts = Facts(headers: headers, status: status, responseTime: responseTime) }
    }
    /// What freshness needs from the fields, read once when the entry is made rather than at
    /// every lookup: parsing its dates and directives was a third of a hit's cost.
    private(set) var facts: Facts

    init(
        primaryKey: String, variant: [VaryField], status: Int, headers: HTTPHeaders, httpVersion: HTTPVersion,
        body: Data, requestTime: Date, responseTime: Date
    ) {
        self.primaryKey = primaryKey
        self.variant = variant
        self.status = status
        self.headers = headers
        self.httpVersion = httpVersion
        self.body = body
        self.requestTime = requestTime
        self.responseTime = responseTime
        facts = Facts(headers: headers, status: status, responseTime: responseTime)
    }

    /// A request header field a stored variant was selected by.
    struct VaryField: Sendable, Equatable {
        var name: String
        var value: String?
    }

    /// What the entry costs in a store's byte budget: its body and its header text.
    var cost: Int {
        body.count + primaryKey.utf8.count
            + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }

    /// The secondary key: the variant's fields as one string (empty without `Vary`).
    var variantKey: String { Self.variantKey(variant) }

    static func variantKey(_ variant: [VaryField]) -> String {
        variant.map { "\($0.name):\($0.value ?? "\u{0}")" }.joined(separator: "\n")
    }
}
