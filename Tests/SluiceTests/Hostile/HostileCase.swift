import Foundation
import Sluice
import SluiceTesting
import Testing

/// One hostile-input case: a server that misbehaves (or a request that must never be sent), what
/// the client must make of it, and the timeout that bounds it. `HostileInputTests` runs each over
/// HTTP and HTTPS; `Docs/Reliability.md` lists them all.
struct HostileCase: Sendable {
    /// A stable name, unique in the suite: the name in the test's arguments and in the docs' table.
    let name: String
    /// The group the docs' table lists it under.
    let group: Group
    /// What the case proves, in one sentence for the docs' table.
    let proves: String
    /// How the server behaves.
    let server: Server
    /// What the client must make of it.
    let outcome: Outcome
    /// The schemes it runs over.
    var schemes: [Scheme] = [.http, .https]
    /// Why the client cannot yet end this case as `outcome` says, if it cannot: the test then
    /// expects its checks to fail, and fails once they pass (so the case is then promoted).
    var knownIssue: String? = nil
    /// Changes to `HostileCase.baseOptions` for this case.
    var options: @Sendable (inout RequestOptions) -> Void = { _ in }
    /// Sends the request: by default a GET of `path` through a client whose base URL is the server's.
    var send: @Sendable (Client) -> SignalProducer<Response, SluiceError> = { $0.get(HostileCase.path) }

    enum Group: String, Sendable, CaseIterable {
        case framing = "Framing"
        case heads = "Status lines and header fields"
        case sizes = "Sizes and floods"
        case encodings = "Content encodings and bombs"
        case stalls = "Stalls and trickles"
        case tls = "TLS"
        case requests = "Requests that must not be sent"
    }

    enum Scheme: String, Sendable {
        case http, https
    }

    enum Server: Sendable {
        /// MockServer answers the request with these steps, written verbatim.
        case wire([WireStep])
        /// A raw listener plays these steps as soon as a connection is accepted, before TLS or HTTP.
        case onAccept([WireStep])
        /// A listener whose accept queue is full: the connection is never established.
        case fullBacklog
        /// MockServer, which the request must never reach (`outcome` is a failure).
        case neverReached
        /// MockServer's echo route: the request must arrive as `Outcome.arrives` says.
        case echo
    }

    enum Outcome: Sendable {
        /// Fails with `code` (and, for a timeout, that `timeout`), a message containing `naming`.
        case fails(SluiceError.Code, timeout: SluiceError.TimeoutKind? = nil, naming: String? = nil)
        /// Succeeds with `status`, and `check` holds for the response.
        case succeeds(status: Int, check: @Sendable (Response) -> Bool = { _ in true })
        /// The request reaches the server, and `check` holds for what arrived.
        case arrives(@Sendable (RecordedRequest) -> Bool)
    }

    /// The path every case requests.
    static let path = "hostile"

    /// Short timeouts and limits, so that a case that waits for one ends soon: every case must end
    /// within 1.5 times the timeout that bounds it (`limit`).
    static func baseOptions() -> RequestOptions {
        var options = RequestOptions()
        options.connectTimeout = .seconds(2)
        options.idleTimeout = .seconds(2)
        options.timeout = .seconds(4)
        options.maximumBodySize = 1 << 20
        options.maximumHeaderSize = 64 << 10
        return options
    }

    /// The timeout that bounds this case: the one it expects to fire, else the total timeout,
    /// which bounds every transfer (a case that fails for another reason ends long before it; on a
    /// loaded machine a handshake alone took over a second).
    func limit(_ options: RequestOptions) -> Duration {
        let total = options.timeout ?? options.idleTimeout
        guard case .fails(.timedOut, let kind, _) = outcome else { return total }
        switch kind {
        case .connect: return options.connectTimeout
        case .total: return total
        case .deadline: return options.deadline ?? total
        case .idle, nil: return options.idleTimeout
        }
    }
}

/// One case over one scheme: the arguments of the parameterised test.
struct HostileRun: Sendable, CustomTestStringConvertible {
    let hostileCase: HostileCase
    let scheme: HostileCase.Scheme
    var testDescription: String { "\(scheme.rawValue): \(hostileCase.name)" }

    /// Every case over each of its schemes.
    static let all: [HostileRun] = HostileCase.all.flatMap { hostileCase in
        hostileCase.schemes.map { HostileRun(hostileCase: hostileCase, scheme: $0) }
    }
}

extension HostileCase {
    /// Every case, in the docs' order.
    static let all: [HostileCase] =
        framing + heads + sizes + encodings + stalls + tls + requests

    /// A response head: the status line, then the field lines, then the blank line.
    static func head(_ fields: String..., status: String = "HTTP/1.1 200 OK") -> String {
        ([status] + fields).map { $0 + "\r\n" }.joined() + "\r\n"
    }
}
