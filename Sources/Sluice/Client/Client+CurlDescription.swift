import FoundationEssentials

extension Client {
    /// `request` as the `curl` command line this client would send for it: with the headers its
    /// configuration adds (the default headers, and the credentials of `authorization`), which
    /// `request.curlDescription` alone leaves out, since they are added by the chain as the request
    /// is sent. Interceptors of your own are not run; `response.request.curlDescription` shows what
    /// the last hop really sent.
    ///
    ///     print(client.curlDescription(for: try client.makeRequest(.get, "users/42")))
    ///     // curl -v -H 'Accept-Encoding: gzip, deflate, br, zstd' -H 'User-Agent: …' …
    public func curlDescription(for request: Request, redactingAuthorization: Bool = true) -> String {
        var sent = DefaultHeadersInterceptor.apply(configuration.defaultHeaders, to: request)
        if let authorization = configuration.authorization, !sent.headers.contains(Authorization.headerName) {
            sent.headers.add(authorization.field)
        }
        return sent.curlDescription(redactingAuthorization: redactingAuthorization)
    }
}
