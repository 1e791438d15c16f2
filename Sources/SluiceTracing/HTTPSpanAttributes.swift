import FoundationEssentials
import Sluice
import Tracing

/// The OpenTelemetry HTTP semantic conventions for client spans, as Sluice's requests, responses
/// and lifecycle events fill them in.
enum HTTPSpanAttributes {
    /// The attributes known when the request starts.
    static func request(_ request: Request, redaction: Redaction) -> SpanAttributes {
        var attributes = SpanAttributes()
        attributes["http.request.method"] = request.method.rawValue
        attributes["url.full"] = redaction.url(request.url)
        if let host = request.url.host { attributes["server.address"] = host }
        if let port = request.url.port ?? defaultPort(of: request.url) { attributes["server.port"] = port }
        return attributes
    }

    /// Notes the response's status; a 4xx or 5xx status is an error of the span (a client span's
    /// rule: the request did not do what was asked).
    static func record(_ response: Response, resends: Int, on span: some Span) {
        span.attributes["http.response.status_code"] = response.status
        if resends > 0 { span.attributes["http.request.resend_count"] = resends }
        if response.status >= 400 {
            span.attributes["error.type"] = String(response.status)
            span.setStatus(SpanStatus(code: .error))
        }
    }

    /// Notes the request's failure: the error's code is its type.
    static func record(_ error: SluiceError, resends: Int, on span: some Span) {
        if let status = error.responseCode { span.attributes["http.response.status_code"] = status }
        if resends > 0 { span.attributes["http.request.resend_count"] = resends }
        span.attributes["error.type"] = error.code.name
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: error.message))
    }

    /// An event for a retry about to be sent.
    static func retryEvent(_ attempt: RetryAttempt) -> SpanEvent {
        SpanEvent(
            name: "http.retry",
            attributes: [
                "http.request.resend_count": .int64(Int64(attempt.attempt - 1)),
                "sluice.retry.reason": .string(attempt.reason.description),
                "sluice.retry.delay_ms": .int64(milliseconds(attempt.delay)),
            ])
    }

    /// An event for a redirect being followed.
    static func redirectEvent(_ hop: RedirectHop, redaction: Redaction) -> SpanEvent {
        SpanEvent(
            name: "http.redirect",
            attributes: [
                "http.response.status_code": .int64(Int64(hop.status)),
                "url.full": .string(redaction.url(hop.to)),
                "http.request.method": .string(hop.method.rawValue),
            ])
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    private static func defaultPort(of url: URL) -> Int? {
        switch url.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }
}
