/// A client the end-to-end suite measures, and the child binary that runs it.
public enum E2EClient: String, CaseIterable, Sendable {
    case c
    case sluice
    case urlsession
    case ahc

    /// The row title in a table.
    public var label: String {
        switch self {
        case .c: return "C, raw libcurl multi"
        case .sluice: return "Sluice Client"
        case .urlsession: return "URLSession (FoundationNetworking)"
        case .ahc: return "AsyncHTTPClient 1.37.0"
        }
    }

    /// The name of the child executable that links this client alone (a target of the package,
    /// built next to `sluice-bench`): its peak RSS is then that of a program using this client only.
    public var executable: String { "sluice-bench-\(rawValue)" }
}
