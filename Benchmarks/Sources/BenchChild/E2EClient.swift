/// A client the end-to-end suite measures, and the child binary that runs it.
public enum E2EClient: String, CaseIterable, Sendable {
    case c
    /// The C client sending Sluice's default headers as well (`Accept-Encoding`, `Accept-Language`,
    /// `User-Agent`), so that its requests carry the same bytes as Sluice's: the row that tells what
    /// those headers cost libcurl, apart from what Sluice's own code costs.
    case cWithSluiceHeaders = "c_headers"
    case sluice
    /// Sluice awaiting each response in a task that prefers its transport's executor
    /// (`Client.taskExecutor`), so that the task runs on the transport's loop thread: the row that
    /// tells what the two thread crossings of a plain `await` cost.
    case sluiceOnTransportExecutor = "sluice_executor"
    /// Sluice with no default headers and decompression off, so that its requests carry the same
    /// bytes as the plain C client's: the row that tells what Sluice's own code costs against raw
    /// libcurl, from the other side than `cWithSluiceHeaders`, and what a client configured this
    /// way gets.
    case sluiceWithoutDefaultHeaders = "sluice_bare"
    /// Sluice with one interceptor of the user's that changes nothing (`.adapt { $0 }`): what
    /// leaving the direct route for the interceptor chain costs (the cost suite counts it alone).
    case sluiceWithAdapter = "sluice_adapt"
    /// Sluice while something observes the client's `events`: what building every request's task
    /// events costs (the cost suite counts it alone).
    case sluiceObserved = "sluice_observed"
    /// Sluice's transport alone: the request a client makes (its URL, default headers and cookie
    /// jar), prepared once and handed straight to `CurlTransport`, its response taken whole, without
    /// the client's chain, validation or serialization: the row that tells the transport's cost
    /// apart from the client's (the cost suite counts it alone).
    case sluiceTransport = "sluice_transport"
    case urlsession
    case ahc

    /// The row title in a table.
    public var label: String {
        switch self {
        case .c: return "C, raw libcurl multi"
        case .cWithSluiceHeaders: return "C, with Sluice's default headers"
        case .sluice: return "Sluice Client"
        case .sluiceOnTransportExecutor: return "Sluice Client, on its transport's executor"
        case .sluiceWithoutDefaultHeaders: return "Sluice Client, no default headers"
        case .sluiceWithAdapter: return "Sluice Client, with .adapt { $0 }"
        case .sluiceObserved: return "Sluice Client, events observed"
        case .sluiceTransport: return "Sluice's transport alone"
        case .urlsession: return "URLSession (FoundationNetworking)"
        case .ahc: return "AsyncHTTPClient 1.37.0"
        }
    }

    /// The client whose binary runs this one's measurements: itself, except for the C client with
    /// Sluice's headers, which is the C client told to send more headers, and Sluice's variants (on
    /// its transport's executor, without default headers, with an adapter, observed), which are
    /// Sluice's child told to run so.
    public var binary: E2EClient {
        switch self {
        case .cWithSluiceHeaders: return .c
        case .sluiceOnTransportExecutor, .sluiceWithoutDefaultHeaders, .sluiceWithAdapter, .sluiceObserved,
            .sluiceTransport:
            return .sluice
        default: return self
        }
    }

    /// The name of the child executable that links this client alone (a target of the package,
    /// built next to `sluice-bench`): its peak RSS is then that of a program using this client only.
    public var executable: String { "sluice-bench-\(binary.rawValue)" }
}
