import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Synchronization
import Testing

/// Runs `body` with a fresh MockServer and a fresh CurlTransport, shutting the server down after.
func withServer<T>(
    _ body: (MockServer, CurlTransport) async throws -> T
) async throws -> T {
    let server = try await MockServer.start()
    let transport = CurlTransport()
    do {
        let result = try await body(server, transport)
        try await server.shutdown()
        return result
    } catch {
        try? await server.shutdown()
        throw error
    }
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

    /// Waits until `condition` holds or the deadline passes.
    func wait(seconds: Double = 10, until condition: (TransferRecorder) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition(self)
    }
}
