internal import CCurl

extension SluiceError {
    /// The error for a transfer whose connection failed on its way through a proxy or to a Unix
    /// socket, naming that proxy or socket (libcurl's own message names only a host and port);
    /// nil for any other failure, which `init(transferResult:…)` describes. `connectCode` is the
    /// status the proxy answered CONNECT with, 0 if it did not.
    init?(routeFailure code: CURLcode, message: String, options: RequestOptions, connectCode: Int, url: String) {
        let curlCode = Int(code.rawValue)
        let detail = (message.isEmpty ? String(cString: curl_easy_strerror(code)) : message).withoutFinalFullStop
        if let proxy = options.proxy {
            let named = "the proxy \(proxy)"
            switch code {
            case CURLE_COULDNT_RESOLVE_PROXY:
                self.init(.dnsFailure, "Could not resolve \(named) for \(url): \(detail).", curlCode: curlCode)
            // libcurl reports a refused tunnel with one code or another depending on its version.
            case _ where connectCode == 407:
                self.init(
                    proxyRefused: proxy.description, hadCredentials: proxy.credentials != nil, url: url,
                    curlCode: curlCode)
            case _ where connectCode >= 300:
                self.init(
                    .cannotConnect,
                    "\(named.capitalizedFirst) refused the tunnel to \(url) (CONNECT answered \(connectCode)).",
                    curlCode: curlCode)
            case CURLE_PROXY:
                // A SOCKS failure: refused credentials, an unreachable target, a bad reply.
                self.init(
                    .cannotConnect, "\(named.capitalizedFirst) failed to reach \(url): \(detail).", curlCode: curlCode)
            case CURLE_COULDNT_CONNECT:
                self.init(
                    .cannotConnect, "Could not connect to \(url) through \(named): \(detail).", curlCode: curlCode)
            case _ where proxy.kind == .https && connectCode == 0 && Self.proxyTLSCodes.contains(code):
                // No answer to CONNECT yet: the handshake that failed is the proxy's.
                self.init(.tlsFailure, "TLS with \(named) failed for \(url): \(detail).", curlCode: curlCode)
            default:
                return nil
            }
            return
        }
        if let path = options.unixSocketPath, code == CURLE_COULDNT_CONNECT {
            self.init(
                .cannotConnect, "Could not connect to \(url) through the Unix socket \(path): \(detail).",
                curlCode: curlCode)
            return
        }
        return nil
    }
}

extension SluiceError {
    /// A proxy's 407, to a tunnel or a forwarded request: the request did not reach the origin.
    init(proxyRefused proxy: String, hadCredentials: Bool, url: String, curlCode: Int) {
        let reason = hadCredentials ? "refused the credentials" : "asks for credentials"
        self.init(
            .cannotConnect, "The proxy \(proxy) \(reason) for \(url) (407 Proxy Authentication Required).",
            curlCode: curlCode)
    }

    /// The codes of a failed TLS handshake or certificate check.
    fileprivate static let proxyTLSCodes: [CURLcode] = [
        CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
        CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
    ]
}

extension String {
    /// The text with its first letter in upper case, for a phrase that starts a sentence.
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
