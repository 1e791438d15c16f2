import FoundationEssentials
import Sluice

extension Redaction {
    /// The headers that hold a URL, whose secrets (a signed redirect target's) are redacted too.
    static let locationHeaders: Set<String> = ["location", "content-location"]

    /// Response headers redacted, with the URLs of `Location` and `Content-Location` redacted as
    /// `url(_:)` does (resolved against `base` when relative, then written as received).
    func headers(_ headers: HTTPHeaders, locationsFrom base: URL) -> HTTPHeaders {
        HTTPHeaders(
            self.headers(headers).map { field in
                guard Self.locationHeaders.contains(field.name.lowercased()) else { return field }
                return HTTPHeaders.Field(name: field.name, value: reference(field.value, from: base))
            })
    }

    /// A URL reference from a header, its secrets redacted: an absolute one as `url(_:)` writes it,
    /// a relative one kept relative.
    func reference(_ text: String, from base: URL) -> String {
        guard let url = URL(string: text) else { return text }
        if url.scheme != nil { return self.url(url) }
        guard let resolved = URL(string: text, relativeTo: base)?.absoluteURL else { return text }
        let redacted = self.url(resolved)
        // Unchanged: keep the header's own spelling.
        return redacted == resolved.absoluteString ? text : redacted
    }
}
