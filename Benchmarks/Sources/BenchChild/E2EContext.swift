/// What a child is told: where nginx is and how much work to do.
public struct E2EContext: Sendable {
    /// The longest one child may take before the parent kills it and counts its measurement as
    /// failed; the child's own waits give up 10 s earlier, so that it still reports.
    public static let deadlineSeconds = 300
    /// The size of each POSTed body.
    public static let postBytes = 1024
    /// The bytes every POST sends: 1 KiB of printable text, the same for every client. Bytes rather
    /// than `Data`, so that the harness needs no Foundation; each client wraps them once.
    public static let postPayload = (0..<postBytes).map { UInt8(ascii: "a") + UInt8($0 % 26) }

    /// nginx's port on 127.0.0.1.
    public var port: Int
    /// nginx's temporary directory: files under `www`, downloads under `downloads`.
    public var directory: String
    /// Operations of the measured run.
    public var count: Int
    /// How many of them are in flight at once.
    public var inFlight: Int
    /// Bytes of a bulk transfer.
    public var bulkBytes: Int
    /// Header lines (`Name: value`) the client sends with every request besides its own; only the
    /// C client reads them (to send Sluice's default headers, `E2EClient.cWithSluiceHeaders`).
    public var requestHeaders: [String]
    /// The client measured, as the child was told (not an argument of its own: the child sets it).
    public var client: E2EClient?

    /// `http://127.0.0.1:<port>/`, the Sluice client's base URL.
    public var baseURL: String { "http://127.0.0.1:\(port)/" }

    /// The absolute URL of `path` (which starts with `/`).
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The file nginx serves at `path` (which starts with `/`).
    public func file(_ path: String) -> String { directory + "/www" + path }

    /// The file the upload sends: the file nginx serves for downloads.
    public var uploadSource: String { file(NginxRoutes.bigPath) }

    /// Where `client` downloads to; the child deletes it once it has checked its size.
    public func downloadDestination(_ client: E2EClient) -> String {
        directory + "/downloads/\(client.rawValue).bin"
    }

    /// The child's arguments, after the subcommand and the client and workload names.
    public var arguments: [String] {
        // The header lines in one argument, a line each (a header value has no line break).
        [String(port), directory, String(count), String(inFlight), String(bulkBytes)]
            + [requestHeaders.joined(separator: "\n")]
    }

    /// Reads the arguments `arguments` wrote; nil if they are malformed.
    public init?(arguments: [String]) {
        guard arguments.count == 6, let port = Int(arguments[0]), let count = Int(arguments[2]),
            let inFlight = Int(arguments[3]), let bulkBytes = Int(arguments[4])
        else { return nil }
        self.init(
            port: port, directory: arguments[1], count: count, inFlight: inFlight, bulkBytes: bulkBytes,
            requestHeaders: arguments[5].split(separator: "\n").map(String.init))
    }

    /// A context with these values.
    public init(
        port: Int, directory: String, count: Int, inFlight: Int, bulkBytes: Int, requestHeaders: [String] = []
    ) {
        self.port = port
        self.directory = directory
        self.count = count
        self.inFlight = inFlight
        self.bulkBytes = bulkBytes
        self.requestHeaders = requestHeaders
    }
}
