/// What one child does, measured for each of its clients.
public enum E2EWorkload: String, CaseIterable, Sendable {
    /// Small GETs one after the other, each awaited before the next starts.
    case sequential
    /// GETs of the ~1 KB JSON document, one after the other, each decoded into `E2ECatalog`.
    case decode
    /// Small GETs with a fixed number in flight.
    case parallel
    /// 1 KiB POSTs with a fixed number in flight.
    case post
    /// One large file downloaded to a file.
    case download
    /// One large file uploaded as a multipart form.
    case upload
    /// Small GETs, all started at once.
    case burst

    /// The key in JSON and on the command line (`--only sluice_seq`).
    public var key: String {
        switch self {
        case .sequential: return "seq"
        case .decode: return "json"
        case .parallel: return "par64"
        case .post: return "post64"
        case .download: return "download"
        case .upload: return "upload"
        case .burst: return "inflight10k"
        }
    }

    /// Whether the figure is MB/s of one large transfer rather than requests per second.
    public var isBulk: Bool { self == .download || self == .upload }

    /// The clients measured, C first: the C client is the reference of every ratio. On the small
    /// requests the C client also runs with Sluice's default headers, and Sluice without them, to tell
    /// their cost in libcurl apart from Sluice's own.
    public var clients: [E2EClient] {
        switch self {
        // Sluice's sequential GETs again on its transport's executor (a task option of its own).
        case .sequential:
            return [
                .c, .cWithSluiceHeaders, .sluice, .sluiceWithoutDefaultHeaders, .sluiceOnTransportExecutor, .urlsession,
                .ahc,
            ]
        case .parallel, .post:
            return [.c, .cWithSluiceHeaders, .sluice, .sluiceWithoutDefaultHeaders, .urlsession, .ahc]
        case .download: return [.c, .sluice, .urlsession, .ahc]
        // Sluice's decoding row against C fetching the same document; the other clients'
        // decoding would measure Foundation's JSONDecoder again.
        case .decode: return [.c, .sluice]
        // URLSession has no multipart form builder; a user would not stream a 1 GiB form through it.
        case .upload: return [.c, .sluice, .ahc]
        case .burst: return [.c, .sluice]
        }
    }

    /// The clients a child runs this workload for besides `clients`: Sluice's variants that only the
    /// cost suite measures (`sluice-bench cost`, instructions per request), for what they add to a
    /// request; the e2e suite's rates leave them out.
    public var costOnlyClients: [E2EClient] {
        self == .parallel ? [.sluiceWithAdapter, .sluiceObserved, .sluiceTransport] : []
    }
}
