extension Client {
    /// A client whose connections all go to the Unix domain socket at `path`, as the Docker
    /// Engine API is reached:
    ///
    ///     let docker = try Client(unixSocket: "/var/run/docker.sock", baseURL: "http://localhost/v1.43/")
    ///     let containers = try await docker.get("containers/json").validate().value
    ///
    /// `baseURL` gives the requests' `Host` header, paths and query; its host is never looked up.
    /// The socket is `configuration.requestOptions.unixSocketPath`, so a request can still choose
    /// another (or nil, for TCP) in its own options.
    public convenience init(
        unixSocket path: String,
        baseURL: String = "http://localhost/",
        configuration: Configuration = Configuration(),
        interceptors: [any Interceptor] = [],
        transport: any Transport = CurlTransport.shared
    ) throws(SluiceError) {
        if let problem = RequestOptions.unixSocketProblem(path) { throw SluiceError(.invalidOption, problem) }
        var configuration = configuration
        configuration.requestOptions.unixSocketPath = path
        try self.init(baseURL: baseURL, configuration: configuration, interceptors: interceptors, transport: transport)
    }
}

extension RequestOptions {
    /// The longest socket path the system takes: `sun_path` holds 108 bytes with the NUL.
    static let longestUnixSocketPath = 107

    /// Why `path` cannot name a Unix socket, if it cannot.
    static func unixSocketProblem(_ path: String) -> String? {
        if path.isEmpty { return "The Unix socket path is empty." }
        if path.utf8.count > longestUnixSocketPath {
            return
                "The Unix socket path \(path) is \(path.utf8.count) bytes long; the system takes at most \(longestUnixSocketPath)."
        }
        if path.utf8.contains(0) { return "The Unix socket path \(path.debugDescription) contains a NUL byte." }
        return nil
    }
}
