import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Synchronization
import Testing

/// A token store whose refresh finishes only once `isReleased` says so (every concurrent request
/// has been refused by then), so the test does not depend on timing; a refresh still held after
/// ten seconds fails the test (`eventually`).
actor TokenStore {
    var current = "expired"
    var refreshes = 0
    var failing = false
    let isReleased: @Sendable () -> Bool

    init(releasedWhen isReleased: @escaping @Sendable () -> Bool = { true }) {
        self.isReleased = isReleased
    }

    func refresh() async throws -> String {
        refreshes += 1
        try await Task.sleep(for: .milliseconds(20))
        try await eventually("every concurrent request is refused before the refresh ends", isReleased)
        if failing { throw SluiceError(.authenticationFailed, "The refresh token was revoked.") }
        current = "fresh"
        return current
    }

    func fail() { failing = true }
}

@Suite("Auth interceptors")
struct AuthInterceptorTests {
    @Test func fiftyConcurrentRequestsWithAnExpiredTokenCauseExactlyOneRefresh() async throws {
        try await withServer { server, transport in
            let tokens = TokenStore(releasedWhen: { server.requests(to: "/bearer/fresh").count >= 50 })
            let client = try Client(
                baseURL: server.baseURL.absoluteString,
                interceptors: [.bearer(token: { await tokens.current }, refresh: { try await tokens.refresh() })],
                transport: transport)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 { group.addTask { try await client.get("bearer/fresh").value.status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 50))
            #expect(await tokens.refreshes == 1)
            let sent = server.requests(to: "/bearer/fresh")
            #expect(sent.filter { $0.headers["Authorization"] == "Bearer fresh" }.count == 50)
            #expect(sent.count <= 100, "each request is replayed at most once")
        }
    }

    @Test func aFailedRefreshFailsEveryWaitingRequestWithItsError() async throws {
        try await withServer { server, transport in
            // The refresh fails only once all ten requests have been refused: none of them can
            // arrive after it and start another.
            let tokens = TokenStore(releasedWhen: { server.requests(to: "/bearer/fresh").count >= 10 })
            await tokens.fail()
            let client = try Client(
                baseURL: server.baseURL.absoluteString,
                interceptors: [.bearer(token: { await tokens.current }, refresh: { try await tokens.refresh() })],
                transport: transport)
            let messages = await withTaskGroup(of: String.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        do throws(SluiceError) {
                            _ = try await client.get("bearer/fresh").value
                            return "succeeded"
                        } catch {
                            return error.message
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(messages == Array(repeating: "The refresh token was revoked.", count: 10))
            // Requests waiting while the refresh ran share it; one whose 401 is processed after
            // the refresh failed starts another (a failure is not remembered, so a later 401 can
            // still recover), so the count is at least one, and never one per request plus more.
            let refreshes = await tokens.refreshes
            #expect(refreshes >= 1 && refreshes <= 10)
        }
    }

    @Test func withoutARefreshA401IsDelivered() async throws {
        try await withServer { server, transport in
            let client = try Client(
                baseURL: server.baseURL.absoluteString, interceptors: [.bearer { "wrong" }], transport: transport)
            #expect(try await client.get("bearer/right").value.status == 401)
            #expect(server.requests(to: "/bearer/right").count == 1)
        }
    }

    @Test func basicCredentialsFromAnInterceptorOrTheConfiguration() async throws {
        try await withServer { server, transport in
            let viaInterceptor = try Client(
                baseURL: server.baseURL.absoluteString, interceptors: [.basic(user: "ada", password: "pw")],
                transport: transport)
            #expect(try await viaInterceptor.get("basic-auth/ada/pw").value.status == 200)
            var configuration = Client.Configuration()
            configuration.authorization = .basic(user: "ada", password: "pw")
            let viaConfiguration = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            #expect(try await viaConfiguration.get("basic-auth/ada/pw").value.status == 200)
            #expect(try await viaConfiguration.get("basic-auth/ada/other").value.status == 401)
        }
    }
}
