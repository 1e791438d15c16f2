import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Testing

@Suite("Redirect rules")
struct RedirectRulesTests {
    func redirect(
        _ status: Int, from: String, to location: String, method: HTTPMethod = .post,
        policy: RedirectPolicy = .default
    ) async throws -> Result<Request, SluiceError> {
        // A stub answers the first request with the redirect and records what follows.
        let stub = StubTransport { request in
            if request.url.absoluteString == from {
                return .response(status: status, headers: ["Location": location])
            }
            return .response(status: 200, body: Data("done".utf8))
        }
        var configuration = Client.Configuration()
        configuration.redirectPolicy = policy
        let client = try Client(configuration: configuration, transport: stub)
        var request = Request(method: method, url: URL(string: from)!, body: .data(Data("payload".utf8)))
        request.headers["Content-Type"] = "text/plain"
        request.headers["Authorization"] = "Bearer secret"
        request.headers["Cookie"] = "session=1"
        request.headers["X-Api-Key"] = "k"
        request.headers["X-Trace"] = "t"
        do throws(SluiceError) {
            let response = try await client.send(request).value
            #expect(response.status == 200)
        } catch {
            return .failure(error)
        }
        return .success(try #require(stub.requests.last))
    }

    @Test(arguments: [301, 302, 303])
    func threeHundredOneTwoThreeSwitchToGetWithoutABody(status: Int) async throws {
        let next = try await redirect(status, from: "http://a.test/x", to: "/y").get()
        #expect(next.method == .get)
        #expect(next.url.absoluteString == "http://a.test/y")
        if case .empty = next.body {} else { Issue.record("the body is dropped") }
        #expect(!next.headers.contains("Content-Type"))
        #expect(next.headers["Authorization"] == "Bearer secret", "same origin keeps credentials")
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func headStaysHead(status: Int) async throws {
        #expect(try await redirect(status, from: "http://a.test/x", to: "/y", method: .head).get().method == .head)
    }

    @Test(arguments: [307, 308])
    func threeHundredSevenAndEightKeepTheMethodAndTheBody(status: Int) async throws {
        let next = try await redirect(status, from: "http://a.test/x", to: "http://a.test:80/z").get()
        #expect(next.method == .post)
        guard case .data(let body) = next.body else {
            Issue.record("the body is kept")
            return
        }
        #expect(body == Data("payload".utf8))
        #expect(next.headers["Content-Type"] == "text/plain")
    }

    @Test func aChangeOfOriginRemovesCredentialsAndMarkedHeaders() async throws {
        let policy = RedirectPolicy(sensitiveHeaders: ["x-api-key"])
        for target in ["http://b.test/y", "https://a.test/y", "http://a.test:8080/y"] {
            let next = try await redirect(307, from: "http://a.test/x", to: target, policy: policy).get()
            #expect(next.url.absoluteString == target)
            for name in ["Authorization", "Cookie", "X-Api-Key"] { #expect(!next.headers.contains(name), "\(name)") }
            #expect(next.headers["X-Trace"] == "t")
        }
    }

    @Test func theApiKeyAndTokenHeadersAreRemovedUnlessKept() async throws {
        let everything = RedirectPolicy.credentialHeaders.union(RedirectPolicy.secretHeaders)
        #expect(RedirectPolicy.default.crossOriginRemovedHeaders == everything)
        #expect(RedirectPolicy.secretHeaders.isDisjoint(with: RedirectPolicy.credentialHeaders))
        let kept = RedirectPolicy(sensitiveHeaders: ["X-Tenant"], removesSecretHeaders: false)
        #expect(kept.crossOriginRemovedHeaders == RedirectPolicy.credentialHeaders.union(["X-Tenant"]))
        let next = try await redirect(307, from: "http://a.test/x", to: "http://b.test/y").get()
        #expect(next.headers["X-Api-Key"] == nil, "removed by default")
    }

    @Test func httpsToHttpIsRefusedUnlessAllowed() async throws {
        let refused = try await redirect(302, from: "https://a.test/x", to: "http://a.test/y")
        guard case .failure(let error) = refused else {
            Issue.record("refused")
            return
        }
        #expect(error.code == .redirectFailed)
        #expect(error.message.contains("downgrades https to http"))
        let allowed = try await redirect(
            302, from: "https://a.test/x", to: "http://a.test/y", policy: RedirectPolicy(allowsDowngrade: true))
        #expect(try allowed.get().url.absoluteString == "http://a.test/y")
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://a.test/f", "gopher://a.test/"])
    func onlyHttpAndHttpsTargetsAreFollowed(target: String) async throws {
        guard case .failure(let error) = try await redirect(302, from: "http://a.test/x", to: target) else {
            Issue.record("refused")
            return
        }
        #expect(error.code == .redirectFailed)
        #expect(error.message.contains("only http and https are followed"))
    }

    @Test func aCustomHandlerCanStopChangeOrFail() async throws {
        let stop = RedirectPolicy.custom { _ in .stop }
        let stub = StubTransport(reply: .response(status: 302, headers: ["Location": "/elsewhere"]))
        var configuration = Client.Configuration()
        configuration.redirectPolicy = stop
        let client = try Client(configuration: configuration, transport: stub)
        #expect(try await client.send(Request(url: URL(string: "http://a.test/")!)).value.status == 302)
        #expect(stub.requests.count == 1)

        let changed = RedirectPolicy.custom { redirect in
            var next = redirect.next
            next.headers["X-Hop"] = "\(redirect.hop)"
            return .follow(next)
        }
        let next = try await redirect(302, from: "http://a.test/x", to: "/y", policy: changed).get()
        #expect(next.headers["X-Hop"] == "1")

        let failing = RedirectPolicy.custom { _ in .fail(SluiceError(.redirectFailed, "not today")) }
        guard case .failure(let error) = try await redirect(302, from: "http://a.test/x", to: "/y", policy: failing)
        else {
            Issue.record("failed")
            return
        }
        #expect(error.message == "not today")
    }
}
