import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Synchronization
import Testing

/// Runs `body` with a fresh MockServer listening on `host` and `port` (0: a free one), and shuts
/// the server down after, awaited, also when `body` throws. Every test's server goes through here.
///
/// ```swift
/// try await withServer { server in ... }                    // a server alone
/// try await withServer { server, transport in ... }         // with a fresh CurlTransport
/// try await withServers { server, other, transport in ... } // two servers, for cross-origin cases
/// ```
func withServer<T>(
    host: String = "127.0.0.1", port: Int = 0, _ body: (MockServer) async throws -> T
) async throws -> T {
    let server = try await MockServer.start(host: host, port: port)
    return try await shuttingDown(server) { try await body(server) }
}

/// Runs `body` with a fresh MockServer and a fresh CurlTransport, which outlives the server; see
/// `withServer(host:port:_:)`.
func withServer<T>(
    host: String = "127.0.0.1", port: Int = 0, _ body: (MockServer, CurlTransport) async throws -> T
) async throws -> T {
    let server = try await MockServer.start(host: host, port: port)
    let transport = CurlTransport()
    defer { withExtendedLifetime(transport) {} }
    return try await shuttingDown(server) { try await body(server, transport) }
}

/// Runs `body` with `server`, started by the caller in a way of its own (TLS, a Unix socket), and a
/// fresh CurlTransport; shuts the server down after, as `withServer(host:port:_:)` does.
func withServer<T>(
    _ server: MockServer, _ body: (MockServer, CurlTransport) async throws -> T
) async throws -> T {
    let transport = CurlTransport()
    defer { withExtendedLifetime(transport) {} }
    return try await shuttingDown(server) { try await body(server, transport) }
}

/// Runs `body` with two fresh MockServers and a fresh CurlTransport, shutting both down after.
func withServers<T>(_ body: (MockServer, MockServer, CurlTransport) async throws -> T) async throws -> T {
    try await withServer { server, transport in
        try await withServer { other in try await body(server, other, transport) }
    }
}

/// Runs `body`, then shuts `server` down, awaited, whether `body` returned or threw.
func shuttingDown<T>(_ server: MockServer, after body: () async throws -> T) async throws -> T {
    let result: T
    do {
        result = try await body()
    } catch {
        try? await server.shutdown()
        throw error
    }
    try await server.shutdown()
    return result
}

extension CurlTransport {
    /// Sends a GET and awaits its response.
    func send(_ url: URL, headers: HTTPHeaders = [:], options: RequestOptions = RequestOptions())
        async throws(SluiceError) -> Response
    {
        try await send(.get, url, headers: headers, options: options)
    }

    /// Sends a request and awaits its response.
    func send(
        _ method: HTTPMethod, _ url: URL, headers: HTTPHeaders = [:], body: RequestBody = .empty,
        options: RequestOptions = RequestOptions()
    ) async throws(SluiceError) -> Response {
        let request = try Request(method: method, url: url, headers: headers, body: body, options: options).prepared()
        return try await response(for: request).value
    }
}

/// Expects `operation` to fail with a `SluiceError` of `code`; returns the error.
@discardableResult
func expectFailure(
    _ code: SluiceError.Code, sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: () async throws -> Response
) async -> SluiceError? {
    do {
        let response = try await operation()
        Issue.record("expected \(code), got status \(response.status)", sourceLocation: sourceLocation)
        return nil
    } catch let error as SluiceError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a SluiceError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Records transfer events for assertions.
final class TransferRecorder: Sendable {
    private let storage = Mutex<[Event<TransferEvent, SluiceError>]>([])

    var observer: Observer<TransferEvent, SluiceError> {
        Observer { event in self.storage.withLock { $0.append(event) } }
    }
    var events: [Event<TransferEvent, SluiceError>] { storage.withLock { $0 } }
    var bodyBytes: Int {
        events.reduce(0) { total, event in
            if case .value(.body(let chunk)) = event { return total + chunk.count }
            return total
        }
    }
    /// The response heads, upload progress and completion metrics among the events, in order.
    var heads: [ResponseHead] {
        events.compactMap { if case .value(.head(let head)) = $0 { head } else { nil } }
    }
    var uploadProgress: [TransferProgress] {
        events.compactMap { if case .value(.uploadProgress(let progress)) = $0 { progress } else { nil } }
    }
    var completedMetrics: [TransferMetrics] {
        events.compactMap { if case .value(.completed(let metrics)) = $0 { metrics } else { nil } }
    }
    var terminal: Event<TransferEvent, SluiceError>? { events.last.flatMap { $0.isTerminating ? $0 : nil } }
}
