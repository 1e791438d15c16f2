internal import CCurl
import FoundationEssentials

extension EasyConfigurator {
    /// Sets the options that decide where a request's connection goes: the proxy (with its
    /// credentials, bypass list and own TLS checks), host overrides, the IP version and a Unix
    /// socket. Part of `setRequestOptions`: every row is set for every transfer, to the request's
    /// value or libcurl's default, so none outlives its request. The text is made when the options
    /// are (`Proxy`, `HostOverride`); a request without any of them sets only constants.
    static func setConnectionOptions(_ easy: EasyHandle, _ options: RequestOptions) throws(SluiceError) {
        let proxy = options.proxy
        let fromEnvironment = options.proxyFromEnvironment
        if let problem = proxy?.problem { throw SluiceError(.invalidOption, problem) }
        // nil: from the environment; an empty proxy turns off libcurl's reading of http_proxy and
        // friends.
        try easy.set(CURLOPT_PROXY, optional: proxy?.url ?? (fromEnvironment ? nil : ""))
        // Apart from the URL, so that no character of theirs needs escaping.
        try easy.set(CURLOPT_PROXYUSERNAME, optional: proxy?.credentials?.username)
        try easy.set(CURLOPT_PROXYPASSWORD, optional: proxy?.credentials?.password)
        // Left unset, libcurl reads no_proxy from the environment for every transfer (two getenv
        // calls, about 1,000 instructions), and honours it for a proxy the caller chose.
        try easy.set(CURLOPT_NOPROXY, optional: proxy?.bypassText ?? (fromEnvironment ? nil : ""))
        // An HTTPS proxy's own checks, apart from the origin's (CURLOPT_SSL_*).
        let verifyProxy = proxy?.tls.verifiesCertificate ?? true
        try easy.set(CURLOPT_PROXY_SSL_VERIFYPEER, verifyProxy)
        try easy.set(CURLOPT_PROXY_SSL_VERIFYHOST, verifyProxy ? 2 : 0)
        try easy.set(CURLOPT_PROXY_CAINFO_BLOB, blob: proxy?.kind == .https ? proxy?.tls.caCertificates : nil)

        // Host overrides go to CURLOPT_CONNECT_TO, also those that name an address: entries of
        // CURLOPT_RESOLVE go into the DNS cache the multi handle shares, where other requests find
        // them, and libcurl would reuse a connection made through one for a request without it
        // (Docs/Decisions.md).
        if options.hostOverrides.isEmpty {
            try easy.set(CURLOPT_CONNECT_TO, pointer: nil)
        } else {
            if let problem = options.hostOverrides.lazy.compactMap(\.problem).first {
                throw SluiceError(.invalidOption, problem)
            }
            if easy.connectTo?.overrides != options.hostOverrides {
                let list = CurlStringList(options.hostOverrides.map(\.line))
                try easy.set(CURLOPT_CONNECT_TO, pointer: UnsafeMutableRawPointer(list.raw))
                easy.connectTo = (options.hostOverrides, list)
            } else {
                try easy.set(
                    CURLOPT_CONNECT_TO, pointer: easy.connectTo.flatMap { UnsafeMutableRawPointer($0.list.raw) })
            }
        }
        let ipResolve: Int32
        switch options.ipPreference {
        case .any: ipResolve = CURL_IPRESOLVE_WHATEVER
        case .ipv4: ipResolve = CURL_IPRESOLVE_V4
        case .ipv6: ipResolve = CURL_IPRESOLVE_V6
        }
        try easy.set(CURLOPT_IPRESOLVE, Int(ipResolve))
        if let path = options.unixSocketPath, let problem = RequestOptions.unixSocketProblem(path) {
            throw SluiceError(.invalidOption, problem)
        }
        try easy.set(CURLOPT_UNIX_SOCKET_PATH, optional: options.unixSocketPath)
    }
}
