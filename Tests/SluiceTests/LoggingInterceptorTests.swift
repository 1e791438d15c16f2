import Foundation
import Logging
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Testing

/// A swift-log handler that keeps the lines in memory.
struct CapturingLogHandler: LogHandler {
    let lines: Lock<[(Logger.Level, String)]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.withLock { $0.append((event.level, "\(event.message)")) }
    }
}

@Suite("Logging interceptor")
struct LoggingInterceptorTests {
    func capture(level: Logger.Level) -> (Logger, Lock<[(Logger.Level, String)]>) {
        let lines = Lock<[(Logger.Level, String)]>([])
        let logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines, logLevel: level) }
        return (logger, lines)
    }

    @Test func oneLineOutAndOneLineBackAtInfo() async throws {
        try await withServer { server, transport in
            let (logger, lines) = capture(level: .info)
            let client = try Client(
                baseURL: server.baseURL.absoluteString, interceptors: [.logging(logger)], transport: transport)
            _ = try await client.get("bytes/2048").value
            let logged = lines.withLock { $0 }
            #expect(logged.count == 2)
            let url = server.url(for: .bytes(2048)).absoluteString
            #expect(logged.first?.1 == "→ GET \(url)")
            let last = try #require(logged.last?.1)
            #expect(last.hasPrefix("← 200 GET \(url) "))
            #expect(last.hasSuffix(" ms, 2.0 KB"))
        }
    }

    @Test func aRedirectedRequestEndsWithTheURLThatAnswered() async throws {
        try await withServer { server, transport in
            let (logger, lines) = capture(level: .info)
            let client = try Client(
                baseURL: server.baseURL.absoluteString, interceptors: [.logging(logger)], transport: transport)
            let target = server.url(for: .status(200))
            let start = server.url(for: .redirect(status: 302, to: target)).absoluteString
            _ = try await client.get(start).value
            let last = try #require(lines.withLock { $0 }.last?.1)
            #expect(last.hasPrefix("← 200 GET \(target.absoluteString) (redirected from \(start)) "), "\(last)")
        }
    }

    @Test func headersAndBodiesAtDebugWithSecretsRedacted() async throws {
        try await withServer { server, transport in
            let (logger, lines) = capture(level: .debug)
            let client = try Client(
                baseURL: server.baseURL.absoluteString,
                interceptors: [.logging(logger, redactedHeaders: ["X-Api-Key"])], transport: transport)
            // Not `echo`: its body repeats the request's headers.
            _ = try await client.post(
                "status/201", json: ["name": "ada"],
                headers: ["Authorization": "Bearer top-secret", "X-Api-Key": "k-secret", "X-Trace": "t1"]
            ).value
            let text = lines.withLock { $0 }.map(\.1).joined(separator: "\n")
            #expect(text.contains("Authorization: ***"))
            #expect(text.contains("X-Api-Key: ***"))
            #expect(text.contains("X-Trace: t1"))
            #expect(!text.contains("top-secret") && !text.contains("k-secret"))
            #expect(text.contains(#"→ body {"name":"ada"}"#))
            #expect(text.contains(#"← body {"#))
        }
    }

    @Test func apiKeysAndTokensAreRedactedWithoutBeingNamed() async throws {
        try await withServer { server, transport in
            let (logger, lines) = capture(level: .debug)
            let client = try Client(
                baseURL: server.baseURL.absoluteString, interceptors: [.logging(logger)], transport: transport)
            _ = try await client.get(
                "status/200", headers: ["X-Api-Key": "k-secret", "x-auth-token": "t-secret", "X-Trace": "t1"]
            ).value
            let text = lines.withLock { $0 }.map(\.1).joined(separator: "\n")
            #expect(text.contains("X-Api-Key: ***"))
            #expect(text.contains("x-auth-token: ***"))
            #expect(text.contains("X-Trace: t1"))
            #expect(!text.contains("k-secret") && !text.contains("t-secret"))
        }
    }

    @Test func failuresAreLoggedAsWarnings() async throws {
        try await RefusedAddress.withBaseURL { base in
            let (logger, lines) = capture(level: .info)
            let client = try Client(
                baseURL: base.absoluteString, interceptors: [.logging(logger)], transport: CurlTransport())
            _ = try? await client.get("echo").value
            let failure = try #require(lines.withLock { $0 }.last)
            #expect(failure.0 == .warning)
            #expect(failure.1.hasPrefix("✗ GET \(base.absoluteString)echo "))
            #expect(failure.1.contains("cannotConnect"))
        }
    }
}
