import Foundation
import Sluice
import SluiceTesting
import Synchronization
import Testing

/// Cookies through a `Client` against MockServer: libcurl's engine stores what each response sets
/// and sends what matches each request, on every redirect hop. Several hosts are names that reach
/// the one server on 127.0.0.1 through host overrides (`.test` names resolve nowhere else).
@Suite("Cookie jar")
struct CookieJarTests {
    /// Names that reach `server` through overrides, for a client with `jar`.
    private func client(
        _ server: MockServer, _ transport: CurlTransport, jar: CookieJar? = CookieJar(), hosts: [String] = []
    ) throws -> Client {
        var configuration = Client.Configuration()
        configuration.cookies = jar
        configuration.requestOptions.hostOverrides = hosts.map { .resolve($0, port: server.port, to: "127.0.0.1") }
        return try Client(configuration: configuration, transport: transport)
    }

    /// The URL of `endpoint` on `server`, by `host`.
    private func url(_ server: MockServer, _ endpoint: Endpoint, host: String = "127.0.0.1") -> String {
        var parts = URLComponents(url: server.url(for: endpoint), resolvingAgainstBaseURL: false)!
        parts.host = host
        return parts.url!.absoluteString
    }

    /// Sends a GET to `endpoint` by `host` and returns the Cookie header the server got.
    @discardableResult
    private func cookieHeader(
        _ client: Client, _ server: MockServer, _ endpoint: Endpoint = .echo, host: String = "127.0.0.1"
    ) async throws -> String? {
        _ = try await client.get(url(server, endpoint, host: host)).value
        return server.recordedRequests.last?.headers["Cookie"]
    }

    /// A response that sets `cookies` (each a whole Set-Cookie value).
    private func setting(_ cookies: String...) -> Endpoint {
        .responseHeaders(cookies.map { ("Set-Cookie", $0) })
    }

    @Test func aCookieSetByOneResponseIsSentWithTheNext() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            let sent1 = try await cookieHeader(client, server, setting("session=abc"))
            #expect(sent1 == nil)
            let sent2 = try await cookieHeader(client, server)
            #expect(sent2 == "session=abc")
            let stored = try #require(client.cookies?["session"])
            #expect(stored.domain == "127.0.0.1")
            #expect(!stored.includesSubdomains)
            #expect(stored.isSession)
        }
    }

    @Test func aDomainCookieGoesToSubdomainsAndAHostOnlyOneDoesNot() async throws {
        try await withServer { server, transport in
            let hosts = ["shop.example.test", "api.shop.example.test", "other.example.test"]
            let client = try client(server, transport, hosts: hosts)
            try await cookieHeader(
                client, server, setting("wide=1; Domain=shop.example.test", "narrow=2"), host: hosts[0])
            // libcurl sends the longer name first (RFC 6265 leaves the order to the client, past the path).
            let sent3 = try await cookieHeader(client, server, host: hosts[0])
            #expect(sent3 == "narrow=2; wide=1")
            let sent4 = try await cookieHeader(client, server, host: hosts[1])
            #expect(sent4 == "wide=1")
            let sent5 = try await cookieHeader(client, server, host: hosts[2])
            #expect(sent5 == nil)
            #expect(client.cookies?["wide"]?.includesSubdomains == true)
        }
    }

    @Test func aCookieIsSentOnItsPathOnly() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            try await cookieHeader(client, server, setting("inside=1; Path=/status"))
            let sent6 = try await cookieHeader(client, server, .status(200))
            #expect(sent6 == "inside=1")
            let sent7 = try await cookieHeader(client, server)
            #expect(sent7 == nil)
            #expect(client.cookies?["inside"]?.path == "/status")
        }
    }

    /// Over plain http to a name that is not loopback: libcurl, as browsers do, takes loopback
    /// addresses and `localhost` for a secure context, where Secure cookies go over http too.
    @Test func aSecureCookieGoesOverHTTPSOnly() async throws {
        let pki = try await TestPKI.shared
        try await withServer(MockServer.start(tls: pki.otherHost.serverTLS)) { secure, transport in
            try await withServer { plain in
                let host = "other.example"
                let jar = CookieJar()
                var configuration = Client.Configuration()
                configuration.cookies = jar
                configuration.requestOptions.tls.trustRoots = .only(pem: pki.authorityCertificate)
                configuration.requestOptions.hostOverrides = [
                    .resolve(host, port: secure.port, to: "127.0.0.1"),
                    .resolve(host, port: plain.port, to: "127.0.0.1"),
                ]
                let client = try Client(configuration: configuration, transport: transport)
                try jar.add(Cookie(name: "token", value: "t", domain: host, isSecure: true))
                try jar.add(Cookie(name: "plain", value: "p", domain: host))
                _ = try await client.get("https://\(host):\(secure.port)/echo").value
                let overTLS = secure.recordedRequests.last?.headers["Cookie"]
                #expect(overTLS == "plain=p; token=t")
                // The same host (cookies know no ports) over plain http.
                let overHTTP = try await cookieHeader(client, plain, host: host)
                #expect(overHTTP == "plain=p")

                // A server on plain http cannot set one.
                try await cookieHeader(client, plain, setting("forged=1; Secure"), host: host)
                #expect(jar["forged"] == nil)
            }
        }
    }

    @Test func anHttpOnlyCookieIsStoredAndSent() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            try await cookieHeader(client, server, setting("h=1; HttpOnly"))
            let sent9 = try await cookieHeader(client, server)
            #expect(sent9 == "h=1")
            #expect(client.cookies?["h"]?.isHTTPOnly == true)
        }
    }

    /// SameSite tells a browser what to do with requests other sites start: a client has none,
    /// so the cookie is stored and sent whatever it says.
    @Test(arguments: ["Strict", "Lax", "None; Secure"])
    func aSameSiteCookieIsStoredAndSent(sameSite: String) async throws {
        try await withServer { server, transport in
            let host = "site.example.test"
            let client = try client(server, transport, hosts: [host])
            let secure = sameSite.hasSuffix("Secure")
            try await cookieHeader(client, server, setting("s=1; SameSite=\(sameSite)"), host: host)
            // libcurl refuses Secure cookies that arrive over plain http.
            let sent10 = try await cookieHeader(client, server, host: host)
            #expect(sent10 == (secure ? nil : "s=1"))
        }
    }

    @Test func maxAgeAndExpiresBoundACookiesLife() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            let future = Date().addingTimeInterval(86_400 * 30)
            let futureText = Self.httpDate(future)
            try await cookieHeader(
                client, server,
                setting(
                    "brief=1; Max-Age=4", "month=2; Expires=\(futureText)",
                    "gone=3; Expires=Thu, 01 Jan 1970 00:00:01 GMT"))
            let sent11 = try await cookieHeader(client, server)
            // (libcurl orders cookies of one path by the length of their names, then as it likes.)
            #expect(Set(sent11?.components(separatedBy: "; ") ?? []) == ["brief=1", "month=2"])
            let month = try #require(client.cookies?["month"]?.expires)
            #expect(abs(month.timeIntervalSince(future)) < 1.5)
            #expect(client.cookies?["gone"] == nil)

            // Max-Age counts in real time: libcurl's clock is the system's. (Four seconds: on a
            // loaded machine the two requests above took over a second.)
            try await Task.sleep(for: .milliseconds(5_100))
            let sent12 = try await cookieHeader(client, server)
            #expect(sent12 == "month=2")
            #expect(client.cookies?.all.map(\.name) == ["month"])

            // Max-Age=0 removes a cookie the jar holds.
            try await cookieHeader(client, server, setting("month=2; Max-Age=0"))
            let sent13 = try await cookieHeader(client, server)
            #expect(sent13 == nil)
        }
    }

    @Test func aCookieForAPublicSuffixIsRefused() async throws {
        try await withServer { server, transport in
            let hosts = ["shop.co.uk", "bank.co.uk"]
            let client = try client(server, transport, hosts: hosts)
            try await cookieHeader(client, server, setting("wide=1; Domain=co.uk", "own=2"), host: hosts[0])
            let sent14 = try await cookieHeader(client, server, host: hosts[1])
            #expect(sent14 == nil)
            let sent15 = try await cookieHeader(client, server, host: hosts[0])
            #expect(sent15 == "own=2")
            #expect(client.cookies?.all.map(\.name) == ["own"])
        }
    }

    @Test func twoHostsKeepTheirCookiesApart() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport, hosts: ["localhost"])
            try await cookieHeader(client, server, setting("by=address"))
            try await cookieHeader(client, server, setting("by=name"), host: "localhost")
            let sent16 = try await cookieHeader(client, server)
            #expect(sent16 == "by=address")
            let sent17 = try await cookieHeader(client, server, host: "localhost")
            #expect(sent17 == "by=name")
            #expect(Set(client.cookies?.all.map(\.domain) ?? []) == ["127.0.0.1", "localhost"])
        }
    }

    /// Each hop stores its own response's cookies and sends those of its own origin: the cookie a
    /// redirect sets stays with the host that set it.
    @Test func aCrossOriginRedirectSendsEachHostItsOwnCookies() async throws {
        try await withServer { server, transport in
            let hosts = ["from.example.test", "to.example.test"]
            let jar = CookieJar()
            let client = try client(server, transport, jar: jar, hosts: hosts)
            try jar.add(Cookie(name: "mine", value: "to", domain: hosts[1]))
            server.script(
                "/hop",
                ScriptedResponse(
                    status: 302,
                    headers: HTTPHeaders([
                        ("Location", url(server, .echo, host: hosts[1])), ("Set-Cookie", "hop=from"),
                    ])))
            let response = try await client.get(url(server, .scripted(path: "/hop"), host: hosts[0])).value
            #expect(response.status == 200)
            let hops = server.recordedRequests.suffix(2)
            #expect(hops.first?.headers["Cookie"] == nil)
            #expect(hops.last?.headers["Host"] == "\(hosts[1]):\(server.port)")
            #expect(hops.last?.headers["Cookie"] == "mine=to")
            let sent18 = try await cookieHeader(client, server, host: hosts[0])
            #expect(sent18 == "hop=from")
        }
    }

    @Test func aRequestCanLeaveTheJarOut() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            try await cookieHeader(client, server, setting("kept=1"))
            var request = try client.makeRequest(.get, url(server, setting("ignored=1")))
            request.options.usesCookies = false
            _ = try await client.send(request).value
            #expect(server.recordedRequests.last?.headers["Cookie"] == nil)
            #expect(client.cookies?.all.map(\.name) == ["kept"])
        }
    }

    /// libcurl sends the jar's cookies in a Cookie line of its own: a request's own Cookie header
    /// is joined to it, never sent as a second line.
    @Test func aRequestsOwnCookieHeaderJoinsTheJarsInOneLine() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            try await cookieHeader(client, server, setting("jar=1"))
            _ = try await client.get(url(server, .echo), headers: ["Cookie": "mine=2"]).value
            let joined = server.recordedRequests.last?.headers.filter { $0.name.lowercased() == "cookie" }
            #expect(joined?.map(\.value) == ["jar=1; mine=2"])

            // Without the jar, the header goes as it is.
            var request = try client.makeRequest(.get, url(server, .echo), headers: ["Cookie": "mine=2"])
            request.options.usesCookies = false
            _ = try await client.send(request).value
            let alone = server.recordedRequests.last?.headers.filter { $0.name.lowercased() == "cookie" }
            #expect(alone?.map(\.value) == ["mine=2"])
            // And the jar's request after it sends no left-over value.
            let again = try await cookieHeader(client, server)
            #expect(again == "jar=1")
        }
    }

    @Test func aClientWithoutAJarNeitherStoresNorSends() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport, jar: nil)
            #expect(client.cookies == nil)
            try await cookieHeader(client, server, setting("a=1"))
            let sent19 = try await cookieHeader(client, server)
            #expect(sent19 == nil)
        }
    }

    @Test func manyConcurrentRequestsSettingCookiesAllLand() async throws {
        try await withServer { server, transport in
            let client = try client(server, transport)
            let count = 64
            let jar = try #require(client.cookies)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    group.addTask {
                        _ = try await client.get(url(server, setting("c\(index)=\(index)"))).value
                    }
                }
                // The jar's own handle lists, adds and removes from other threads meanwhile.
                group.addTask {
                    for index in 0..<32 {
                        _ = jar.all
                        let cookie = Cookie(name: "by-hand-\(index)", value: "1", domain: "example.test")
                        try jar.add(cookie)
                        jar.remove(cookie)
                    }
                }
                try await group.waitForAll()
            }
            let cookies = jar.all
            #expect(cookies.count == count)
            #expect(Set(cookies.map(\.name)) == Set((0..<count).map { "c\($0)" }))
            let header = try #require(try await cookieHeader(client, server))
            #expect(header.split(separator: ";").count == count)
        }
    }

    @Test func theJarTellsItsObserversOfChanges() async throws {
        try await withServer { server, transport in
            let jar = CookieJar()
            let client = try client(server, transport, jar: jar)
            let seen = Mutex<[CookieJar.Change]>([])
            let observation = jar.changes.observeValues { change in seen.withLock { $0.append(change) } }
            defer { observation.dispose() }
            let target = url(server, setting("a=1"))
            try await cookieHeader(client, server, setting("a=1"))
            // A response without Set-Cookie changes nothing.
            try await cookieHeader(client, server)
            let added = Cookie(name: "b", value: "2", domain: "example.test")
            try jar.add(added)
            jar.remove(added)
            jar.removeAll(sessionOnly: true)
            #expect(
                seen.withLock { $0 } == [
                    .received(from: URL(string: target)!), .added(added), .removed(added),
                    .removedAll(sessionOnly: true),
                ])
            #expect(jar.all.isEmpty)
        }
    }

    @Test func cookiesAddedByHandAreSentAndRemovable() async throws {
        try await withServer { server, transport in
            let jar = CookieJar()
            let client = try client(server, transport, jar: jar)
            let cookie = Cookie(name: "hand", value: "made", domain: "127.0.0.1", path: "/")
            try jar.add(cookie)
            let sent20 = try await cookieHeader(client, server)
            #expect(sent20 == "hand=made")
            jar.remove(cookie)
            #expect(jar.all.isEmpty)
            let sent21 = try await cookieHeader(client, server)
            #expect(sent21 == nil)
            try jar.add(cookie)
            jar.removeAll()
            let sent22 = try await cookieHeader(client, server)
            #expect(sent22 == nil)
        }
    }

    @Test(arguments: [
        Cookie(name: "", value: "v", domain: "example.test"),
        Cookie(name: "a", value: "v", domain: ""),
        Cookie(name: "a;b", value: "v", domain: "example.test"),
        Cookie(name: "a", value: "tab\there", domain: "example.test"),
        Cookie(name: "a", value: "line\nbreak", domain: "example.test"),
        Cookie(name: "a", value: "v", domain: "example.test/path"),
        Cookie(name: "a", value: "v", domain: "example.test", path: "relative"),
    ])
    func aCookieThatCannotBeStoredIsRefused(cookie: Cookie) {
        let jar = CookieJar()
        #expect {
            try jar.add(cookie)
        } throws: { error in
            (error as? SluiceError)?.code == .invalidCookie
        }
        #expect(jar.all.isEmpty)
    }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
