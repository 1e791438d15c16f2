import Foundation
import SluiceTesting
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

@Suite("Authorization, default headers and curl descriptions")
struct RequestHeadersTests {
    // MARK: Authorization

    @Test func basicAndBearerValues() {
        #expect(
            Authorization.basic(user: "Aladdin", password: "open sesame").headerValue
                == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        // RFC 7617 §2.1: credentials are UTF-8.
        #expect(Authorization.basic(user: "test", password: "123£").headerValue == "Basic dGVzdDoxMjPCow==")
        #expect(Authorization.basic(user: "", password: "").headerValue == "Basic Og==")
        #expect(Authorization.bearer("abc.def-ghi").headerValue == "Bearer abc.def-ghi")

        let field = HTTPHeaders.authorization(basicUser: "Aladdin", password: "open sesame")
        #expect(field == HTTPHeaders.Field(name: "Authorization", value: "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="))
        #expect(HTTPHeaders.bearer("t") == HTTPHeaders.Field(name: "Authorization", value: "Bearer t"))
        #expect(HTTPHeaders.Field.bearer("t") == Authorization.bearer("t").field)
        // Descriptions never show the secret.
        #expect("\(Authorization.basic(user: "ada", password: "pw"))" == "Basic ada:***")
        #expect("\(Authorization.bearer("secret"))" == "Bearer ***")
    }

    @Test func settingAndClearingAuthorization() {
        var headers: HTTPHeaders = ["Accept": "*/*", "authorization": "Bearer old", "X-After": "1"]
        headers.setAuthorization(.bearer("new"))
        #expect(headers.values(for: "Authorization") == ["Bearer new"])
        #expect(headers.map(\.name) == ["Accept", "Authorization", "X-After"])
        headers.setAuthorization(nil)
        #expect(!headers.contains("Authorization"))
        #expect(headers.count == 2)
        headers.add(.authorization(basicUser: "a", password: "b"))
        #expect(headers["Authorization"] == "Basic YTpi")
    }

    @Test func credentialsAreAcceptedByTheServer() async throws {
        try await withServer { server, transport in
            var headers = HTTPHeaders()
            headers.setAuthorization(.basic(user: "ada", password: "pä ss:word"))
            let basicURL = server.url(for: .basicAuth(user: "ada", password: "pä ss:word"))
            let basic = try await transport.send(basicURL, headers: headers)
            #expect(basic.status == 200)
            headers.setAuthorization(.bearer("token-123"))
            let bearer = try await transport.send(server.url(for: .bearer(token: "token-123")), headers: headers)
            #expect(bearer.status == 200)
            headers.setAuthorization(nil)
            let cleared = try await transport.send(server.url(for: .bearer(token: "token-123")), headers: headers)
            #expect(cleared.status == 401)
            #expect(server.recordedRequests.last?.headers.contains("Authorization") == false)
        }
    }

    // MARK: Accept-Language

    @Test func acceptLanguageListsLanguagesWithDecreasingQuality() {
        #expect(DefaultHeaders.acceptLanguage(for: ["en-US", "en"]) == "en-US, en;q=0.9")
        #expect(DefaultHeaders.acceptLanguage(for: ["en-US"]) == "en-US, en;q=0.9")
        #expect(
            DefaultHeaders.acceptLanguage(for: ["en-US", "fr-CA", "de"])
                == "en-US, en;q=0.9, fr-CA;q=0.8, fr;q=0.7, de;q=0.6")
        #expect(
            DefaultHeaders.acceptLanguage(for: ["en-US", "en-GB", "fr"]) == "en-US, en-GB;q=0.9, en;q=0.8, fr;q=0.7")
        // At most six, duplicates dropped, POSIX names converted, unusable entries skipped.
        #expect(
            DefaultHeaders.acceptLanguage(for: ["de_DE.UTF-8", "de-de", "C", "x y", "fr", "it", "es", "pt", "nl", "sv"])
                == "de-DE, de;q=0.9, fr;q=0.8, it;q=0.7, es;q=0.6, pt;q=0.5")
        #expect(DefaultHeaders.acceptLanguage(for: []) == "en")
        #expect(DefaultHeaders.acceptLanguage(for: ["C", "POSIX"]) == "en")
    }

    @Test func languagesComeFromThePOSIXLocaleVariables() {
        #expect(DefaultHeaders.languages(fromEnvironment: ["LANG": "de_DE.UTF-8"]) == ["de-DE"])
        #expect(
            DefaultHeaders.languages(fromEnvironment: ["LANG": "de_DE.UTF-8", "LC_ALL": "fr_FR@euro"]) == ["fr-FR"])
        #expect(DefaultHeaders.languages(fromEnvironment: ["LANG": "en_US", "LC_MESSAGES": "pt_BR"]) == ["pt-BR"])
        #expect(
            DefaultHeaders.languages(fromEnvironment: ["LANG": "en_US.UTF-8", "LANGUAGE": "fr:en_GB:en"])
                == ["fr", "en-GB", "en"])
        // The C locale means no preference, and then LANGUAGE is ignored, as gettext does.
        #expect(DefaultHeaders.languages(fromEnvironment: ["LANG": "C.UTF-8", "LANGUAGE": "fr"]).isEmpty)
        #expect(DefaultHeaders.languages(fromEnvironment: ["LC_ALL": "POSIX"]).isEmpty)
        #expect(DefaultHeaders.languages(fromEnvironment: [:]).isEmpty)
        #expect(DefaultHeaders.languages(fromEnvironment: ["LC_ALL": "", "LANG": "es_ES"]) == ["es-ES"])
    }

    @Test func processAcceptLanguageIsWellFormedASCII() {
        let value = DefaultHeaders.acceptLanguage
        #expect(isPrintableASCII(value))
        let entries = value.components(separatedBy: ", ")
        #expect((1...6).contains(entries.count))
        for (index, entry) in entries.enumerated() {
            let parts = entry.components(separatedBy: ";q=")
            #expect(parts[0].allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" }, "\(entry)")
            #expect(parts.count == (index == 0 ? 1 : 2), "\(entry)")
            if index > 0 { #expect(parts[1] == "0.\(10 - index)") }
        }
    }

    // MARK: User-Agent

    @Test func userAgentNamesTheProgramSluiceAndTheSystem() {
        let value = DefaultHeaders.userAgent
        #expect(isPrintableASCII(value))
        #expect(value.contains(" Sluice/\(SluiceInfo.version) (Linux"))
        #expect(value.hasSuffix(")"))
        // Short: libcurl formats every byte of it for every request (no hardware, no libcurl version).
        #expect(!value.contains("libcurl") && !value.contains("x86_64") && !value.contains("aarch64"), "\(value)")
        let executable = value.prefix { $0 != " " }
        #expect(!executable.isEmpty && !executable.hasPrefix("Sluice/"))
    }

    @Test func userAgentIsTransliteratedToASCIITokens() {
        let system = SystemDescription(
            name: "Linux", release: "6.1.0", distribution: "Débian (tëst) 12\\")
        #expect(
            DefaultHeaders.userAgent(executable: "Mÿ Äpp", executableVersion: "1.0 β", system: system)
                == "My-App/1.0-b Sluice/\(SluiceInfo.version) (Linux; Debian test 12)")
        let noDistribution = SystemDescription(name: "Linux", release: "6.1.0", distribution: "()")
        #expect(
            DefaultHeaders.userAgent(executable: "tool", executableVersion: nil, system: noDistribution)
                == "tool Sluice/\(SluiceInfo.version) (Linux 6.1.0)")
        let bare = SystemDescription(name: "Linux", release: "", distribution: nil)
        #expect(
            DefaultHeaders.userAgent(executable: "", executableVersion: nil, system: bare)
                == "Sluice/\(SluiceInfo.version) (Linux)")
        #expect(DefaultHeaders.asciiTransliterated("Crème brûlée Straße 日本\u{7}") == "Creme brulee Strasse ri ben")
    }

    @Test func systemDescriptionParsesUnameAndOSRelease() {
        #expect(SystemDescription.shortRelease("6.1.0-18-amd64") == "6.1.0")
        #expect(SystemDescription.shortRelease("5.15.146.1-microsoft-standard-WSL2") == "5.15.146.1")
        #expect(SystemDescription.shortRelease("weird") == "weird")
        let debian = """
            PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
            NAME="Debian GNU/Linux"
            VERSION_ID="12"
            ID=debian
            """
        #expect(SystemDescription.distribution(fromOSRelease: debian) == "Debian 12")
        let ubuntu = "NAME=\"Ubuntu\"\nVERSION_ID='22.04'\n# comment\nID=ubuntu\n"
        #expect(SystemDescription.distribution(fromOSRelease: ubuntu) == "Ubuntu 22.04")
        #expect(SystemDescription.distribution(fromOSRelease: "ID=alpine\n") == "alpine")
        #expect(SystemDescription.distribution(fromOSRelease: "NAME=\"Say \\\"hi\\\"\"") == "Say \"hi\"")
        #expect(SystemDescription.distribution(fromOSRelease: "") == nil)
        let current = SystemDescription.current()
        #expect(current.name == "Linux")
        #expect(current.release.allSatisfy { $0.isNumber || $0 == "." })
    }

    // MARK: Accept-Encoding and the set

    @Test func acceptEncodingAndAllDefaults() async throws {
        let encodings = DefaultHeaders.acceptEncoding.components(separatedBy: ", ")
        #expect(encodings.starts(with: ["gzip", "deflate"]))
        #expect(Set(encodings).isSubset(of: ["gzip", "deflate", "br", "zstd"]))
        let all = DefaultHeaders.all
        #expect(all.map(\.name) == ["Accept-Encoding", "Accept-Language", "User-Agent"])
        #expect(all.allSatisfy { isPrintableASCII($0.value) })

        try await withServer { server, transport in
            let response = try await transport.send(server.url(for: .gzip(bytes: 10_000)), headers: all)
            #expect(response.body == MockServer.deterministicBytes(count: 10_000))
            let recorded = try #require(server.recordedRequests.last)
            #expect(recorded.headers["Accept-Language"] == all["Accept-Language"])
            #expect(recorded.headers["User-Agent"] == all["User-Agent"])
            #expect(recorded.headers.values(for: "Accept-Encoding") == [DefaultHeaders.acceptEncoding])
        }
    }

    /// The lean configuration the docs suggest for the fastest small requests: no default headers and
    /// decompression off send the head raw libcurl sends, and a request's own headers still go out.
    @Test func aClientWithoutDefaultHeadersSendsOnlyWhatARequestNeeds() async throws {
        try await withServer { server, transport in
            var configuration = Client.Configuration()
            configuration.defaultHeaders = [:]
            configuration.requestOptions.decompress = false
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)

            let get = try await client.get("echo").validate().data().value
            #expect(!get.isEmpty)
            let recordedGet = try #require(server.recordedRequests.last)
            #expect(recordedGet.headers.map { $0.name.lowercased() } == ["host", "accept"])

            var post = try client.makeRequest(
                .post, "echo", headers: ["Content-Type": "text/plain", "User-Agent": "mine"])
            post.body = .data(Data("hello".utf8))
            let answer = try await client.send(post).validate().value
            #expect(answer.status == 200)
            let recordedPost = try #require(server.recordedRequests.last)
            #expect(recordedPost.body == Data("hello".utf8))
            #expect(
                recordedPost.headers.map { $0.name.lowercased() }.sorted()
                    == ["accept", "content-length", "content-type", "host", "user-agent"])
            #expect(recordedPost.headers["User-Agent"] == "mine")

            // A request's own headers are still checked before anything is sent.
            let count = server.recordedRequests.count
            let error = await expectFailure(.invalidHeader) {
                try await client.get("echo", headers: ["X-Split": "a\r\nX-Injected: 1"]).value
            }
            #expect(error?.message.contains("X-Split") == true, "\(String(describing: error))")
            #expect(server.recordedRequests.count == count)
        }
    }

    // MARK: curl descriptions

    @Test func curlDescriptionOfSimpleRequests() {
        let url = URL(string: "https://example.com/a?b=1&c=2")!
        #expect(Request(url: url).curlDescription == "curl -v --compressed 'https://example.com/a?b=1&c=2'")
        #expect(
            Request(method: .head, url: url).curlDescription
                == "curl -v --head --compressed 'https://example.com/a?b=1&c=2'")
        var plain = Request(method: .delete, url: url)
        plain.options.decompress = false
        #expect(plain.curlDescription == "curl -v -X DELETE 'https://example.com/a?b=1&c=2'")
        #expect(
            Request(method: "M'X", url: url).curlDescription
                == #"curl -v -X 'M'\''X' --compressed 'https://example.com/a?b=1&c=2'"#)
    }

    @Test func curlDescriptionQuotesHeadersAndBodies() {
        let url = URL(string: "https://example.com/users")!
        let request = Request(
            method: .post, url: url,
            headers: ["Content-Type": "application/json", "X-Quote": "it's", "X-Empty": ""],
            body: .data(Data(#"{"name":"O'Brien"}"#.utf8)))
        #expect(
            request.curlDescription
                == #"curl -v -X POST -H 'Content-Type: application/json' -H 'X-Quote: it'\''s' -H 'X-Empty;' "#
                + #"--compressed --data-binary '{"name":"O'\''Brien"}' 'https://example.com/users'"#)

        // A body starting with @ would make curl read a file: it is given with --data-raw.
        var at = Request(method: .put, url: url, body: .data(Data("@etc/passwd".utf8)))
        at.options.decompress = false
        #expect(at.curlDescription == "curl -v -X PUT --data-raw '@etc/passwd' 'https://example.com/users'")

        // A GET with a body needs -X GET, since --data-binary would make curl send a POST.
        var get = Request(url: url, body: .data(Data("q".utf8)))
        get.options.decompress = false
        #expect(get.curlDescription == "curl -v -X GET --data-binary 'q' 'https://example.com/users'")
    }

    @Test func curlDescriptionOfBinaryFileAndStreamBodies() {
        let url = URL(string: "http://127.0.0.1:8080/up")!
        var options = RequestOptions()
        options.decompress = false
        let binary = Request(method: .post, url: url, body: .data(Data([0xFF, 0x00, 0x01])), options: options)
        #expect(
            binary.curlDescription
                == "printf '%s' '/wAB' | base64 -d | curl -v -X POST --data-binary @- 'http://127.0.0.1:8080/up'")
        let large = Request(
            method: .post, url: url, body: .data(Data(repeating: 0xFF, count: 70_000)), options: options)
        #expect(
            large.curlDescription
                == "curl -v -X POST --data-binary @- 'http://127.0.0.1:8080/up' "
                + "# pipe in the body: 70000 bytes of binary data, not shown")
        let file = Request(
            method: .put, url: url, body: .file(URL(fileURLWithPath: "/tmp/it's here.bin")), options: options)
        #expect(
            file.curlDescription == #"curl -v -X PUT --data-binary '@/tmp/it'\''s here.bin' 'http://127.0.0.1:8080/up'"#
        )
        let stream = Request(
            method: .post, url: url, headers: ["Content-Type": "multipart/form-data; boundary=x"],
            body: .stream(BodyProvider(length: 42) { throw CancellationError() }), options: options)
        #expect(
            stream.curlDescription
                == "curl -v -X POST -H 'Content-Type: multipart/form-data; boundary=x' --data-binary @- "
                + "'http://127.0.0.1:8080/up' # pipe in the body: a stream of 42 bytes, not shown")
        let unknown = Request(
            method: .post, url: url, body: .stream(BodyProvider(length: nil) { throw CancellationError() }),
            options: options)
        #expect(unknown.curlDescription.hasSuffix("# pipe in the body: a stream of unknown length, not shown"))
    }

    @Test func curlDescriptionOfAResumedDownloadContinuesTheFile() {
        var options = RequestOptions()
        options.destination = .partialFile(URL(fileURLWithPath: "/tmp/part"), offset: 4_096)
        let request = Request(
            url: URL(string: "https://example.com/big")!,
            headers: ["Range": "bytes=4096-", "If-Range": "\"v1\""], options: options)
        #expect(
            request.curlDescription
                == "curl -v -H 'If-Range: \"v1\"' --compressed -C 4096 -o '/tmp/part' 'https://example.com/big'")
        options.destination = .partialFile(URL(fileURLWithPath: "/tmp/part"), offset: 0)
        let fresh = Request(url: URL(string: "https://example.com/big")!, options: options)
        #expect(fresh.curlDescription == "curl -v --compressed -o '/tmp/part' 'https://example.com/big'")
    }

    @Test func curlDescriptionShowsOptions() throws {
        var options = RequestOptions()
        options.connectTimeout = .milliseconds(2_500)
        options.timeout = .seconds(30)
        options.tls.insecureSkipsPeerVerification = true
        options.tls.insecureSkipsHostNameVerification = true
        options.proxy = try Proxy(url: "http://user:pw@proxy:3128").bypassing(["localhost", ".internal"])
        options.hostOverrides = [.resolve("example.com", port: 443, to: "::1")]
        options.ipPreference = .ipv6
        options.unixSocketPath = "/run/app.sock"
        options.httpVersion = .http1_1
        options.destination = .file(URL(fileURLWithPath: "/tmp/out.bin"))
        let request = Request(url: URL(string: "https://example.com/")!, options: options)
        #expect(
            request.curlDescription
                == "curl -v --compressed --connect-timeout 2.5 --max-time 30 --insecure "
                + "--proxy 'http://proxy:3128' --proxy-user 'user:***' --noproxy 'localhost,.internal' "
                + "--connect-to 'example.com:443:[::1]:443' -6 --unix-socket '/run/app.sock' "
                + "--http1.1 -o '/tmp/out.bin' 'https://example.com/'")
        #expect(request.curlDescription(redactingAuthorization: false).contains("--proxy-user 'user:pw'"))
        options.httpVersion = .http2
        options.destination = .memory
        options.proxy = nil
        options.hostOverrides = []
        options.ipPreference = .any
        options.unixSocketPath = nil
        options.timeout = .milliseconds(250)
        options.connectTimeout = .seconds(10)
        #expect(
            Request(url: URL(string: "http://h/")!, options: options).curlDescription
                == "curl -v --compressed --max-time 0.25 --insecure --http2-prior-knowledge 'http://h/'")
    }

    @Test func curlDescriptionRedactsCredentialsUnlessAsked() {
        var headers: HTTPHeaders = ["Cookie": "session=abc", "Proxy-Authorization": "Basic eA==", "X-Keep": "v"]
        headers.setAuthorization(.bearer("secret-token"))
        var request = Request(url: URL(string: "https://ada:hunter2@example.com/")!, headers: headers)
        request.options.decompress = false
        #expect(
            request.curlDescription
                == "curl -v -H 'Cookie: ***' -H 'Proxy-Authorization: ***' -H 'X-Keep: v' -H 'Authorization: ***' "
                + "'https://ada:***@example.com/'")
        #expect(request.curlDescription(redactingAuthorization: true) == request.curlDescription)
        #expect(
            request.curlDescription(redactingAuthorization: false)
                == "curl -v -H 'Cookie: session=abc' -H 'Proxy-Authorization: Basic eA==' -H 'X-Keep: v' "
                + "-H 'Authorization: Bearer secret-token' 'https://ada:hunter2@example.com/'")
    }

    @Test func curlDescriptionSurvivesAShell() throws {
        // The shell must see exactly the arguments meant: run the command with printf instead of curl.
        let body = "line one\nit's $HOME `id` \"quoted\" \\ back"
        let request = Request(
            method: .post, url: URL(string: "https://example.com/p?q='x'")!, headers: ["X-Tricky": "a'b\"c$d"],
            body: .data(Data(body.utf8)))
        let command = request.curlDescription(redactingAuthorization: false)
        #expect(command.hasPrefix("curl "))
        let output = try ChildProcess.run("/bin/sh", ["-c", "printf '%s\\0' " + command.dropFirst("curl ".count)])
            .standardOutput
        let arguments = output.split(separator: 0, omittingEmptySubsequences: false).dropLast()
            .map { String(decoding: $0, as: UTF8.self) }
        #expect(
            arguments == [
                "-v", "-X", "POST", "-H", "X-Tricky: a'b\"c$d", "--compressed", "--data-binary", body,
                "https://example.com/p?q='x'",
            ])
    }
}

private func isPrintableASCII(_ text: String) -> Bool {
    text.utf8.allSatisfy { (0x20...0x7E).contains($0) }
}

/// The standard-library trimming the default headers use instead of Foundation's must trim exactly
/// what `trimmingCharacters(in: .whitespaces)` trims.
@Suite("Trimming whitespace")
struct TrimmingWhitespaceTests {
    @Test func agreesWithFoundationOnEveryWhitespaceAndSomeNeighbours() {
        let candidates: [Unicode.Scalar] = [
            " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2000}", "\u{2007}",
            "\u{200A}", "\u{200B}", "\u{2028}", "\u{202F}", "\u{205F}", "\u{3000}", "\u{FEFF}", "a", "é",
        ]
        for scalar in candidates {
            for text in ["\(scalar)x\(scalar)", "\(scalar)\(scalar)", "x \(scalar) y", "\(scalar)"] {
                #expect(
                    text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces),
                    "U+\(String(scalar.value, radix: 16, uppercase: true)) in \(text.debugDescription)")
            }
        }
    }

    @Test func asciiUserAgentTextIsNotTransliterated() {
        #expect(DefaultHeaders.asciiTransliterated("Linux 6.1.0 (x86_64)") == "Linux 6.1.0 (x86_64)")
        #expect(DefaultHeaders.asciiTransliterated("Crème") == "Creme")
    }
}
