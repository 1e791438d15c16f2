import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceSignals
import SluiceTesting
import Testing

@Suite("Client")
struct ClientTests {
    @Test(arguments: [
        ("foo", "http://example.com/v1/foo"),
        ("foo?bar=baz", "http://example.com/v1/foo?bar=baz"),
        ("/foo", "http://example.com/foo"),
        ("foo/", "http://example.com/v1/foo/"),
        ("/foo/", "http://example.com/foo/"),
        ("http://example2.com/", "http://example2.com/"),
    ])
    func pathsResolveAgainstTheBaseURLAsAFNetworkingDocuments(path: String, expected: String) throws {
        for base in ["http://example.com/v1/", "http://example.com/v1"] {
            let client = try Client(baseURL: base, transport: StubTransport(reply: .never))
            #expect(try client.url(for: path).absoluteString == expected)
        }
    }

    @Test func theSamePathAgainResolvesTheSameWhateverCameBetween() throws {
        // The client remembers the path it resolved last; alternating paths and a failing one in
        // between must not give any path another's URL, nor make a bad path pass.
        let client = try Client(baseURL: "http://example.com/v1/", transport: StubTransport(reply: .never))
        let paths = ["foo", "foo", "/bar", "foo", "foo?x=1", "http://example2.com/z", "foo"]
        let expected = [
            "http://example.com/v1/foo", "http://example.com/v1/foo", "http://example.com/bar",
            "http://example.com/v1/foo", "http://example.com/v1/foo?x=1", "http://example2.com/z",
            "http://example.com/v1/foo",
        ]
        for (path, url) in zip(paths, expected) {
            #expect(try client.url(for: path).absoluteString == url)
            #expect(throws: SluiceError.self) { try client.url(for: "http://[bad") }
        }
    }

    @Test func canonicallyEquivalentPathsResolveEachToItsOwnURL() throws {
        // "café" composed and decomposed are equal strings but different bytes, encoded into
        // different URLs: the client's memory of the last path must not mix them up.
        let client = try Client(baseURL: "http://example.com/v1/", transport: StubTransport(reply: .never))
        let composed = "caf\u{e9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed)
        let resolution = try BaseURLResolution("http://example.com/v1/")
        for path in [composed, decomposed, composed] {
            #expect(try client.url(for: path).absoluteString == resolution.resolve(path).absoluteString)
        }
    }

    @Test func aRequestIsInFlightBeforeItsTaskIsReportedOrItsInterceptorsRun() throws {
        let client = try Client(baseURL: "http://example.com/", transport: StubTransport(reply: .never))
        let seen = Lock<[Int]>([])
        let cancelled = Lock<[Int]>([])
        let observation = client.events.observeValues { event in
            if case .resumed = event.kind {
                seen.withLock { $0.append(client.inFlightCount) }
                cancelled.withLock { $0.append(client.cancelAll()) }
            }
        }
        defer { observation.dispose() }
        let events = Lock<[Event<Response, SluiceError>]>([])
        let subscription = client.get("x").start { event in events.withLock { $0.append(event) } }
        defer { subscription.dispose() }
        #expect(seen.withLock { $0 } == [1])
        #expect(cancelled.withLock { $0 } == [1])
        #expect(events.withLock { $0.last?.isInterrupted } == true)
        #expect(client.inFlightCount == 0)
    }

    @Test func anInvalidBaseURLIsATypedError() {
        #expect(throws: SluiceError.self) { try Client(baseURL: "ftp://example.com/") }
        #expect(throws: SluiceError.self) { try Client(baseURL: "not a url") }
    }

    @Test func nothingIsSentUntilStartedAndEachStartSendsAgain() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let producer = client.get("echo")
            try await Task.sleep(for: .milliseconds(50))
            #expect(server.recordedRequests.isEmpty)
            _ = try await producer.value
            _ = try await producer.value
            #expect(server.recordedRequests.count == 2)
        }
    }

    @Test func verbsCarryParametersWhereTheyBelong() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let parameters: Parameters = ["user": ["name": "Zoë", "tags": ["a", "b"]], "page": 2]

            let get = try JSONDecoder().decode(
                EchoReply.self, from: try await client.get("echo", parameters: parameters).value.body)
            #expect(get.method == "GET")
            #expect(get.queryItems["page"] == ["2"])
            #expect(get.queryItems["user[name]"] == ["Zoë"])
            #expect(get.queryItems["user[tags][]"] == ["a", "b"])

            for method in [HTTPMethod.head, .delete] {
                _ = try await client.request(method, "echo", parameters: ["q": "x"]).value
                #expect(server.recordedRequests.last?.queryItems["q"] == ["x"])
            }

            let post = try await client.post("echo", parameters: parameters).value
            let recorded = try #require(server.recordedRequests.last)
            #expect(post.status == 200)
            #expect(recorded.method == "POST")
            #expect(recorded.query == nil)
            #expect(recorded.headers["Content-Type"] == "application/x-www-form-urlencoded")
            #expect(recorded.bodyText?.contains("user%5Bname%5D=Zo%C3%AB") == true)

            for method in [HTTPMethod.put, .patch] {
                _ = try await client.request(method, "echo", parameters: ["q": "x"]).value
                #expect(server.recordedRequests.last?.bodyText == "q=x")
            }
        }
    }

    @Test func encodableBodiesAsJSONAndForm() async throws {
        struct NewUser: Codable, Sendable, Equatable {
            let name: String
            let age: Int
        }
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            _ = try await client.post("echo", json: NewUser(name: "Ada", age: 36)).value
            var recorded = try #require(server.recordedRequests.last)
            #expect(recorded.headers["Content-Type"] == "application/json")
            #expect(try JSONDecoder().decode(NewUser.self, from: recorded.body) == NewUser(name: "Ada", age: 36))

            _ = try await client.post("echo", form: NewUser(name: "Ada", age: 36)).value
            recorded = try #require(server.recordedRequests.last)
            #expect(recorded.headers["Content-Type"] == "application/x-www-form-urlencoded")
            #expect(recorded.bodyText == "age=36&name=Ada")
        }
    }

    @Test func defaultHeadersAreSentAndRequestHeadersWin() async throws {
        try await withServer { server, transport in
            var configuration = Client.Configuration()
            configuration.defaultHeaders["X-Team"] = "core"
            configuration.defaultHeaders["X-Remove"] = "soon"
            configuration.defaultHeaders["X-Remove"] = nil
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            _ = try await client.get("echo", headers: ["X-Team": "override"]).value
            let recorded = try #require(server.recordedRequests.last)
            #expect(recorded.headers.values(for: "X-Team") == ["override"])
            #expect(!recorded.headers.contains("X-Remove"))
            #expect(recorded.headers["User-Agent"]?.contains("Sluice/") == true)
            #expect(recorded.headers["Accept-Language"] != nil)
            #expect(recorded.headers["Accept-Encoding"]?.contains("gzip") == true)
        }
    }

    @Test func headerInjectionIsRefusedAndNothingIsSent() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            do throws(SluiceError) {
                _ = try await client.get("echo", headers: ["X-Evil": "a\r\nX-Injected: 1"]).value
                Issue.record("expected a failure")
            } catch {
                #expect(error.code == .invalidHeader)
            }
            #expect(server.recordedRequests.isEmpty)
        }
    }

    @Test func injectionInTheDefaultHeadersIsRefusedToo() async throws {
        try await withServer { server, transport in
            var configuration = Client.Configuration()
            configuration.defaultHeaders.add(name: "X-Evil", value: "a\r\nX-Injected: 1")
            let client = try Client(
                baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            // Taken as they are (the request brings no headers), and merged with the request's own.
            for headers: HTTPHeaders in [[:], ["X-Mine": "1"]] {
                do throws(SluiceError) {
                    _ = try await client.get("echo", headers: headers).value
                    Issue.record("expected a failure")
                } catch {
                    #expect(error.code == .invalidHeader)
                }
            }
            #expect(server.recordedRequests.isEmpty)
        }
    }

    @Test func defaultHeadersCheckedOnceAreCheckedAgainWhenChanged() throws {
        var headers: HTTPHeaders = ["X-Fine": "1"]
        let interceptor = DefaultHeadersInterceptor(headers)
        var request = Request(url: URL(string: "http://example.com/")!, headers: interceptor.headers)
        #expect(throws: Never.self) { try request.prepared() }
        request.headers.add(name: "X-Evil", value: "a\nb")
        #expect(throws: SluiceError.self) { try request.prepared() }
        headers.add(name: "Bad Name", value: "1")
        request.headers = DefaultHeadersInterceptor(headers).headers
        #expect(throws: SluiceError.self) { try request.prepared() }
    }

    @Test func cancelAllInterruptsMatchingRequestsOnly() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let slow = EventRecorder()
            let other = EventRecorder()
            client.get(server.url(for: .delay(.seconds(5))).absoluteString).start(slow.observer)
            client.post(server.url(for: .delay(.milliseconds(300))).absoluteString).start(other.observer)
            try await eventually("both requests are in flight") { client.inFlightCount == 2 }
            let cancelled = client.cancelAll(method: .get, path: server.url(for: .delay(.seconds(5))).path)
            #expect(cancelled == 1)
            try await eventually("the slow request ends") { slow.terminal != nil }
            #expect(slow.terminal?.isInterrupted == true)
            try await eventually("the other request ends") { other.terminal != nil }
            #expect(other.terminal?.isCompleted == true)

            client.get(server.url(for: .delay(.seconds(5))).absoluteString).start(slow.reset())
            try await eventually("the new slow request is in flight") { client.inFlightCount == 1 }
            #expect(client.cancelAll() == 1)
            try await eventually("the new slow request ends") { slow.terminal != nil }
            #expect(slow.terminal?.isInterrupted == true)
            #expect(client.inFlightCount == 0)
        }
    }

    @Test func batchesRunWithALimitReportProgressAndKeepOrder() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let requests = (0..<10).map { i in
                i == 3
                    ? client.get("status/500").attemptMap { response throws(SluiceError) in
                        throw SluiceError(.transportFailure, "status \(response.status)")
                    } : client.get("bytes/\(i + 1)")
            }
            var progress: [Int] = []
            var results: [Result<Response, SluiceError>] = []
            for await event in client.batch(requests, maxConcurrent: 3).values {
                switch event {
                case .progress(let finished, let total):
                    #expect(total == 10)
                    progress.append(finished)
                case .finished(let all): results = all
                }
            }
            #expect(progress == Array(1...10))
            #expect(results.count == 10)
            for (i, result) in results.enumerated() {
                if i == 3 {
                    #expect((try? result.get()) == nil)
                } else {
                    #expect(try result.get().body.count == i + 1)
                }
            }
            #expect(server.connectionCount <= 3)
        }
    }

    /// A request that completes without a response has a result of its own (`.noValue`): dropping
    /// it moved every later result onto the wrong request.
    @Test func aBatchRequestWithoutAResponseKeepsItsPlace() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let requests = [client.get("bytes/1"), .empty, client.get("bytes/3")]
            var results: [Result<Response, SluiceError>] = []
            for await event in client.batch(requests).values {
                if case .finished(let all) = event { results = all }
            }
            #expect(results.count == 3)
            #expect(try results[0].get().body.count == 1)
            #expect(throws: SluiceError.self) { try results[1].get() }
            if case .failure(let error) = results[1] { #expect(error.code == .noValue) }
            #expect(try results[2].get().body.count == 3)
        }
    }
}

/// Records a response producer's events.
final class EventRecorder: Sendable {
    private let events = Lock<[Event<Response, SluiceError>]>([])

    var observer: Observer<Response, SluiceError> { Observer { event in self.events.withLock { $0.append(event) } } }
    var terminal: Event<Response, SluiceError>? { events.withLock { $0.last.flatMap { $0.isTerminating ? $0 : nil } } }

    /// Clears the record and returns the observer again.
    func reset() -> Observer<Response, SluiceError> {
        events.withLock { $0 = [] }
        return observer
    }
}

@Suite("Client uploads")
struct ClientUploadTests {
    @Test func multipartUploadsPutParametersFirstAndStreamFiles() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-\(UUID()).png")
            try MockServer.deterministicBytes(count: 200_000).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let response = try await client.upload(
                multipartFormData: { form in form.append(fileURL: file, name: "avatar") },
                to: "echo", parameters: ["user": ["id": 42]]
            ).value
            #expect(response.status == 200)
            let recorded = try #require(server.recordedRequests.last)
            let contentType = try #require(recorded.headers["Content-Type"])
            #expect(contentType.hasPrefix("multipart/form-data; boundary="))
            let text = String(decoding: recorded.body, as: UTF8.self)
            let field = try #require(text.range(of: "name=\"user[id]\""))
            let part = try #require(text.range(of: "name=\"avatar\"; filename=\"\(file.lastPathComponent)\""))
            #expect(field.lowerBound < part.lowerBound)
            #expect(text.contains("Content-Type: image/png"))
            #expect(recorded.bodyLength > 200_000)
        }
    }

    @Test func aMissingFileFailsBeforeAnythingIsSent() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            do throws(SluiceError) {
                _ = try await client.upload(
                    multipartFormData: { form in
                        form.append(fileURL: URL(fileURLWithPath: "/nonexistent.bin"), name: "f")
                    },
                    to: "echo"
                ).value
                Issue.record("expected a failure")
            } catch {
                #expect(error.code == .multipartEncoding)
            }
            #expect(server.recordedRequests.isEmpty)
        }
    }
}

@Suite("Base URL resolution")
struct BaseURLResolutionTests {
    @Test(arguments: ["http://example.com/v1/", "https://api.example.com:8443/v1/x/", "http://127.0.0.1:9/"])
    func joiningTextAgreesWithFullResolution(base: String) throws {
        let resolution = try BaseURLResolution(base)
        let paths = [
            "users", "users/42", "users/42/", "/users", "/v2/users?x=1", "users?q=a%20b#frag", "a:b", "a/b:c",
            "./users", "../users", "users/./x", "users/../x", ".hidden", "//other.example/x", "?only=query",
            "#fragment", "https://elsewhere.example/z", "users/%C3%A9", "a b", "", "/", "users;p=1", "x/.y/z",
        ]
        for path in paths {
            let expected = URL(string: path, relativeTo: resolution.baseURL)?.absoluteURL
            let actual = try? resolution.resolve(path)
            #expect(actual?.absoluteString == expected?.absoluteString, "\(path.debugDescription) against \(base)")
        }
    }
}
