import Foundation
import Sluice
import SluiceTesting
import Synchronization
import Testing

/// A client with a cache, talking to a MockServer, whose cache reads the time from a clock the
/// test moves (`clock.advance(by:)`).
struct CacheHarness {
    let server: MockServer
    let client: Client
    let clock: TestScheduler
    let cache: HTTPCache
    let log: EventLog

    /// The responses `path` answers, in order, then the last again.
    func script(_ path: String, _ responses: ScriptedResponse...) { server.script(path, responses) }

    /// Sends `method path` with `headers` and `policy`, and returns the response.
    func send(
        _ path: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:], policy: CachePolicy = .useProtocol
    ) async throws -> Response {
        var request = try client.makeRequest(
            method, server.url(for: .scripted(path: path)).absoluteString, headers: headers)
        request.options.cachePolicy = policy
        return try await client.send(request).value
    }

    /// How many requests reached the server for `path`.
    func sent(_ path: String) -> Int { server.requests(to: path).count }

    /// The last request that reached the server for `path`.
    func lastSent(_ path: String) -> RecordedRequest? { server.requests(to: path).last }

    /// Moves the cache's clock forward.
    func advance(seconds: Int) { clock.advance(by: .seconds(seconds)) }
}

/// Runs `body` with a fresh server and a client whose cache is `cache` (a memory cache of 1 MiB
/// unless given) and whose clock starts at a fixed date.
func withCache(
    _ cache: HTTPCache = HTTPCache(memoryCapacity: 1 << 20), _ body: (CacheHarness) async throws -> Void
) async throws {
    try await withServer { server, transport in
        let clock = TestScheduler(startDate: Date(timeIntervalSince1970: 1_800_000_000))
        var configuration = Client.Configuration()
        configuration.cache = cache
        configuration.scheduler = clock
        let client = try Client(
            baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
        try await body(CacheHarness(server: server, client: client, clock: clock, cache: cache, log: EventLog(client)))
    }
}

/// A response with `body` and `headers`.
func reply(_ body: String = "stored", _ headers: (String, String)...) -> ScriptedResponse {
    ScriptedResponse(status: 200, headers: HTTPHeaders(headers), body: Data(body.utf8))
}

/// A response with `status`, `body` and `headers`.
func reply(status: Int, _ body: String = "", _ headers: (String, String)...) -> ScriptedResponse {
    ScriptedResponse(status: status, headers: HTTPHeaders(headers), body: Data(body.utf8))
}

/// `date` as an IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
func httpDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
}

extension Response {
    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }
}
