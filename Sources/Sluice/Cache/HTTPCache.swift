import FoundationEssentials

/// A private HTTP cache (RFC 9111, with RFC 5861's `stale-while-revalidate` and
/// `stale-if-error`), in memory or on disk, bounded in bytes with the least recently used entries
/// evicted first. Set it as a client's `Configuration.cache`; one cache may serve several clients.
///
///     var configuration = Client.Configuration()
///     configuration.cache = try HTTPCache(directory: cachesURL.appending(path: "api"), capacity: 50 << 20)
///     let client = try Client(baseURL: "https://api.example.com/", configuration: configuration)
///
/// Only responses to GET and HEAD are stored. A body streamed with `Client.stream` is stored as it
/// passes, once it has ended well and if it fits in the capacity; a response downloaded to a file
/// passes through unstored. A 200 to a HEAD updates the stored GET responses it
/// describes, and retires them when its validators or length show the resource changed
/// (RFC 9111 §4.3.5). See `CachePolicy` for what one request may ask.
public final class HTTPCache: Sendable {
    let store: any CacheStore

    /// A cache in memory holding at most `capacity` bytes (bodies and header text).
    public init(memoryCapacity capacity: Int) {
        store = MemoryCacheStore(capacity: capacity)
    }

    /// A cache in `directory` (made if missing) holding at most `capacity` bytes of files, which
    /// outlives the process: a later cache on the same directory finds its entries. Caches on the
    /// same directory in one process share their index and their budget. Fails with
    /// `.invalidOption` when the directory cannot be made.
    public init(directory: URL, capacity: Int) throws(SluiceError) {
        store = try DiskCacheStore(directory: directory, capacity: capacity)
    }

    /// The bytes the stored responses take.
    public var byteCount: Int { store.byteCount }

    /// Removes every stored response.
    public func removeAll() { store.removeAll() }

    /// Removes the stored responses to GET and HEAD requests for `url`.
    public func removeResponses(for url: URL) {
        for method in [HTTPMethod.get, .head] { store.remove(Self.primaryKey(method, url)) }
    }

    /// Returns once every response stored so far is written (a disk cache writes in the background).
    public func flush() { store.flush() }

    // MARK: - Keys and variants

    /// The primary key of a request: its method and its URL without the fragment.
    static func primaryKey(_ method: HTTPMethod, _ url: URL) -> String {
        let text = url.absoluteString
        let withoutFragment = text.firstIndex(of: "#").map { String(text[..<$0]) } ?? text
        return method.rawValue + " " + withoutFragment
    }

    /// The value of request field `name` as `Vary` compares it: all its fields joined, trimmed.
    static func varyValue(_ name: String, in headers: HTTPHeaders) -> String? {
        let values = headers.values(for: name)
        guard !values.isEmpty else { return nil }
        return values.map { $0.trimmingWhitespace() }.joined(separator: ", ")
    }

    /// The names in a response's `Vary` fields, lowercased, or nil when one is `*` (it matches no
    /// later request, so it is not stored).
    static func varyNames(_ headers: HTTPHeaders) -> [String]? {
        var names: [String] = []
        for value in headers.values(for: "Vary") {
            for name in value.split(separator: ",") {
                let name = String(name).trimmingWhitespace().lowercased()
                if name == "*" { return nil }
                if !name.isEmpty, !names.contains(name) { names.append(name) }
            }
        }
        return names
    }

    /// The stored responses `request` may be answered with, the most recent first (RFC 9111 §4.1).
    func candidates(for request: Request) -> [CacheEntry] {
        let jarCookies = request.options.cookieShare != nil
        return store.entries(for: Self.primaryKey(request.method, request.url))
            .filter { entry in
                entry.variant.allSatisfy { field in
                    switch field.name {
                    case Self.decodedField: return Self.decodedValue(request) == field.value
                    // The jar's cookies go out without being in `request.headers`: what they are is
                    // not known here, so a response that varies on cookies never answers.
                    case "cookie" where jarCookies: return false
                    default: return Self.varyValue(field.name, in: request.headers) == field.value
                    }
                }
            }
            .sorted { $0.responseTime > $1.responseTime }
    }

    /// The variant field that keeps a coded response's body as it was received: decoded for a
    /// request that had it decoded (`RequestOptions.decompress`), as sent for one that did not.
    /// Not a header name (those have no colon), so no `Vary` can name it.
    static let decodedField = ":decoded"

    /// `request`'s value of `decodedField`.
    static func decodedValue(_ request: Request) -> String? { request.options.decompress ? "1" : nil }

    /// Whether a response's body is coded (a Content-Encoding other than `identity`).
    static func isCoded(_ headers: HTTPHeaders) -> Bool {
        headers.values(for: "Content-Encoding").contains { value in
            value.split(separator: ",").contains { coding in
                let name = String(coding).trimmingWhitespace()
                return !name.isEmpty && !name.caseInsensitiveEquals("identity")
            }
        }
    }

    // MARK: - Storing

    /// Stores `response` to `request` when RFC 9111 §3 allows it and it can be used again; returns
    /// whether it did.
    @discardableResult
    func storeIfAllowed(_ response: Response, for request: Request, requestTime: Date, responseTime: Date) -> Bool {
        guard case .collected(let body) = response.content, response.fileURL == nil,
            let entry = Self.entry(
                for: response, body: body, request: request, requestTime: requestTime, responseTime: responseTime)
        else { return false }
        store.store(entry)
        return true
    }

    /// The entry to store for `response`, or nil if it may not or need not be stored.
    static func entry(
        for response: Response, body: Data, request: Request, requestTime: Date, responseTime: Date
    ) -> CacheEntry? {
        guard request.method == .get || request.method == .head, response.status >= 200, response.status != 206,
            response.status != 304
        else { return nil }
        let requestControl = CacheControl(request.headers)
        let control = CacheControl(response.headers)
        guard !requestControl.noStore, !control.noStore, let names = varyNames(response.headers) else { return nil }
        // A response to a request with credentials is shared with later requests only when it says
        // so (§3.5).
        if request.headers.contains("Authorization"), !control.isPublic, !control.mustRevalidate,
            control.sharedMaxAge == nil
        {
            return nil
        }
        let explicitlyCacheable =
            control.maxAge != nil || response.headers.contains("Expires") || control.isPublic || control.isPrivate
        guard explicitlyCacheable || CacheEntry.heuristicallyCacheable.contains(response.status) else { return nil }
        // A variant selected by cookies cannot be told apart when the jar sent them: they are not
        // in `request.headers` (RFC 9111 §4.1 compares the fields sent).
        if names.contains("cookie"), request.options.cookieShare != nil { return nil }
        var variant = names.map { CacheEntry.VaryField(name: $0, value: varyValue($0, in: request.headers)) }
        if isCoded(response.headers) {
            variant.append(CacheEntry.VaryField(name: decodedField, value: decodedValue(request)))
        }
        let entry = CacheEntry(
            primaryKey: primaryKey(request.method, request.url),
            variant: variant,
            status: response.status, headers: response.headers, httpVersion: response.httpVersion, body: body,
            requestTime: requestTime, responseTime: responseTime)
        // Neither fresh for a while nor able to be validated: it could never answer a request.
        let usable =
            entry.freshnessLifetime > 0 || entry.validators.isEmpty == false || control.staleIfError != nil
            || control.staleWhileRevalidate != nil
        return usable ? entry : nil
    }

    /// Updates `entry` with the header fields of a 304 that validated it (RFC 9111 §3.2) and
    /// stores it again; returns the updated entry.
    func freshen(_ entry: CacheEntry, with notModified: ResponseHead, requestTime: Date, responseTime: Date)
        -> CacheEntry
    {
        var updated = entry
        // The stored `Date` and `Age` described the old response's age; kept after a 304 that
        // does not carry its own, they would make the freshened response as old as it was.
        for name in ["Date", "Age"] where !notModified.headers.contains(name) { updated.headers.remove(name: name) }
        for field in notModified.headers where !Self.keptOn304.contains(field.name.lowercased()) {
            updated.headers.remove(name: field.name)
        }
        for field in notModified.headers where !Self.keptOn304.contains(field.name.lowercased()) {
            updated.headers.add(name: field.name, value: field.value)
        }
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        if CacheControl(updated.headers).noStore {
            store.remove(entry.primaryKey)
        } else {
            store.store(updated)
        }
        return updated
    }

    /// Fields a 304 does not replace: they describe the stored body, which it does not carry.
    static let keptOn304: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "content-range"]

    // MARK: - Invalidation

    /// Removes what a successful unsafe request to `url` made stale (RFC 9111 §4.4): the URL's
    /// responses, and those of its `Location` and `Content-Location` on the same origin.
    func invalidate(after response: Response, to url: URL) {
        removeResponses(for: url)
        for name in ["Location", "Content-Location"] {
            guard let value = response.headers[name], let target = URL(string: value, relativeTo: url)?.absoluteURL,
                target.scheme?.lowercased() == url.scheme?.lowercased(),
                target.host?.lowercased() == url.host?.lowercased(),
                target.port == url.port
            else { continue }
            removeResponses(for: target)
        }
    }
}

extension CacheEntry {
    /// The validators a conditional request can send: `If-None-Match` from `ETag`,
    /// `If-Modified-Since` from `Last-Modified`.
    var validators: HTTPHeaders {
        var fields = HTTPHeaders()
        if let tag = headers["ETag"] { fields["If-None-Match"] = tag }
        if let modified = headers["Last-Modified"] { fields["If-Modified-Since"] = modified }
        return fields
    }
}
