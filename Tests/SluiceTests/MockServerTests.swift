import Foundation
import FoundationNetworking
import SluiceTesting
import Testing

// MockServer is checked with clients that are not Sluice: URLSession for plain routes, and a raw
// blocking socket (below) wherever the bytes on the wire are the point: framing, faults, resets.

@Suite("MockServer")
struct MockServerTests {
    // MARK: Plain routes, through URLSession

    @Test func echoDescribesTheRequest() async throws {
        try await withServer { server in
            var request = URLRequest(
                url: server.url(
                    for: .echo, query: [URLQueryItem(name: "a", value: "1 2"), URLQueryItem(name: "a", value: "&")]))
            request.httpMethod = "POST"
            request.httpBody = Data("héllo".utf8)
            request.setValue("first", forHTTPHeaderField: "X-One")
            request.setValue("second", forHTTPHeaderField: "X-Two")
            let (data, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let echo = try JSONDecoder().decode(EchoReply.self, from: data)
            #expect(echo.method == "POST")
            #expect(echo.path == "/echo")
            #expect(echo.query == "a=1%202&a=%26")
            #expect(echo.queryItems == ["a": ["1 2", "&"]])
            #expect(echo.header("x-one") == "first")
            #expect(echo.body == "héllo")
            #expect(echo.bodyData == Data("héllo".utf8))
            #expect(echo.bodyLength == 6)
            #expect(echo.bodyChecksum == MockServer.checksum(of: Data("héllo".utf8)))

            let recorded = try #require(server.requests(to: .echo).first)
            #expect(recorded.method == "POST")
            #expect(recorded.body == Data("héllo".utf8))
            #expect(recorded.bodyText == "héllo")
            #expect(recorded.isBodyRecorded)
            #expect(recorded.headers["X-Two"] == "second")
            #expect(recorded.queryItems["a"] == ["1 2", "&"])
            #expect(recorded.sequenceNumber == 1)
        }
    }

    @Test func echoKeepsHeaderOrderAndRepeats() async throws {
        try await withServer { server in
            let sent = [("X-Zeta", "1"), ("X-Alpha", "2"), ("X-Zeta", "3")]
            let raw = try await RawSocket.exchange(port: server.port, path: server.url(for: .echo), headers: sent)
            let echo = try JSONDecoder().decode(EchoReply.self, from: raw.response.body)
            #expect(echo.headers.filter { $0[0].hasPrefix("X-") } == sent.map { [$0.0, $0.1] })
            let recorded = try #require(server.recordedRequests.first)
            #expect(recorded.headers.values(for: "x-zeta") == ["1", "3"])
            #expect(recorded.headers.map(\.name).filter { $0.hasPrefix("X-") } == ["X-Zeta", "X-Alpha", "X-Zeta"])
        }
    }

    @Test func statusRoutesReplyWithTheCode() async throws {
        try await withServer { server in
            let (teapot, response) = try await URLSession.shared.data(from: server.url(for: .status(418)))
            #expect((response as? HTTPURLResponse)?.statusCode == 418)
            #expect(String(decoding: teapot, as: UTF8.self) == #"{"status":418}"#)
            let (empty, noContent) = try await URLSession.shared.data(from: server.url(for: .status(204)))
            #expect((noContent as? HTTPURLResponse)?.statusCode == 204)
            #expect(empty.isEmpty)
            let (_, missing) = try await URLSession.shared.data(from: server.baseURL.appendingPathComponent("nowhere"))
            #expect((missing as? HTTPURLResponse)?.statusCode == 404)
        }
    }

    @Test func bytesAreDeterministicWithAChecksum() async throws {
        try await withServer { server in
            for count in [0, 1, 251, 100_000] {
                let (data, response) = try await URLSession.shared.data(from: server.url(for: .bytes(count)))
                let http = try #require(response as? HTTPURLResponse)
                #expect(data == MockServer.deterministicBytes(count: count))
                #expect(http.value(forHTTPHeaderField: "X-Checksum") == MockServer.checksum(of: data))
                #expect(http.value(forHTTPHeaderField: "Content-Length") == "\(count)")
            }
            #expect(MockServer.deterministicBytes(count: 3, offset: 250) == Data([250, 0, 1]))
        }
    }

    @Test func checksumsOfDeterministicBytesNeedNotBuildThem() {
        for (count, offset) in [(0, 0), (1, 7), (64_256, 0), (64_257, 3), (1_000_003, 250), (3 * 64_256 + 5, 1)] {
            let built = MockServer.checksum(of: MockServer.deterministicBytes(count: count, offset: offset))
            #expect(MockServer.deterministicChecksum(count: count, offset: offset) == built)
        }
        #expect(MockServer.zeroBytesChecksum(count: 200_000) == MockServer.checksum(of: Data(count: 200_000)))
        // Pieces fed one by one give the checksum of the whole.
        var running = MockServer.Checksum()
        running.update(MockServer.deterministicBytes(count: 1000))
        running.update(MockServer.deterministicBytes(count: 1000, offset: 1000))
        #expect(running.value == MockServer.deterministicChecksum(count: 2000))
        #expect(MockServer.checksum(of: Data("123456789".utf8)) == "cbf43926")  // the CRC-32 check value
    }

    @Test func largeBodiesStreamWithBackpressure() async throws {
        try await withServer { server in
            let count = 64 << 20
            let result = try await RawSocket.exchange(
                port: server.port, path: server.url(for: .bytes(count)), streamChecksum: true)
            #expect(result.response.status == 200)
            #expect(result.bodyLength == count)
            #expect(result.bodyChecksum == result.response.header("X-Checksum"))
            // HEAD announces a 1 GiB body and its checksum without sending it.
            let head = try await RawSocket.exchange(
                port: server.port, path: server.url(for: .bytes(1 << 30)), method: "HEAD")
            #expect(head.response.header("Content-Length") == "\(1 << 30)")
            #expect(head.response.header("X-Checksum") == MockServer.deterministicChecksum(count: 1 << 30))
            #expect(head.response.body.isEmpty)
        }
    }

    @Test func delayAndDripTakeTheirTime() async throws {
        try await withServer { server in
            let clock = ContinuousClock()
            let start = clock.now
            let (data, _) = try await URLSession.shared.data(from: server.url(for: .delay(.milliseconds(150))))
            #expect(clock.now - start >= .milliseconds(150))
            #expect(try JSONDecoder().decode(EchoReply.self, from: data).path == "/delay/150")

            let dripStart = clock.now
            let drip = try await RawSocket.exchange(
                port: server.port, path: server.url(for: .drip(bytes: 1000, chunks: 4, interval: .milliseconds(40))))
            #expect(clock.now - dripStart >= .milliseconds(160))
            #expect(drip.response.body == MockServer.deterministicBytes(count: 1000))
            #expect(drip.response.header("X-Checksum") == MockServer.deterministicChecksum(count: 1000))
        }
    }

    @Test func chunkedBodiesUseChunkedFraming() async throws {
        try await withServer { server in
            let raw = try await RawSocket.exchange(
                port: server.port, path: server.url(for: .chunked(chunks: ["hello ", "chunked", " world"])))
            #expect(raw.response.header("Transfer-Encoding") == "chunked")
            #expect(raw.response.header("Content-Length") == nil)
            #expect(raw.response.chunks.map { String(decoding: $0, as: UTF8.self) } == ["hello ", "chunked", " world"])
            let (data, _) = try await URLSession.shared.data(from: server.url(for: .chunked(chunks: ["a", "b"])))
            #expect(data == Data("ab".utf8))

            let bytes = try await RawSocket.exchange(
                port: server.port, path: server.url(for: .chunkedBytes(count: 5, size: 100)))
            #expect(bytes.response.chunks.map(\.count) == [100, 100, 100, 100, 100])
            #expect(bytes.response.body == MockServer.deterministicBytes(count: 500))
            #expect(bytes.response.header("X-Checksum") == MockServer.deterministicChecksum(count: 500))
        }
    }

    @Test func gzipBodiesDecodeToWhatTheChecksumSays() async throws {
        try await withServer { server in
            let raw = try await RawSocket.exchange(port: server.port, path: server.url(for: .gzip(bytes: 300_000)))
            #expect(raw.response.header("Content-Encoding") == "gzip")
            #expect(raw.response.body.prefix(2) == Data([0x1f, 0x8b]))
            #expect(raw.response.body.count < 300_000)
            // URLSession (libcurl underneath) decodes gzip by itself.
            let (decoded, response) = try await URLSession.shared.data(from: server.url(for: .gzip(bytes: 300_000)))
            #expect(decoded == MockServer.deterministicBytes(count: 300_000))
            #expect(
                (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Checksum")
                    == MockServer.checksum(of: decoded))

            let bomb = try await RawSocket.exchange(
                port: server.port, path: server.url(for: .gzipBomb(decodedBytes: 64 << 20)))
            #expect(bomb.response.body.count < 128 << 10, "64 MiB of zeros should be tiny on the wire")
            #expect(bomb.response.header("X-Decoded-Length") == "\(64 << 20)")
            let (zeros, _) = try await URLSession.shared.data(from: server.url(for: .gzipBomb(decodedBytes: 1 << 20)))
            #expect(zeros == Data(count: 1 << 20))
        }
    }

    // MARK: Redirects, auth, cookies, headers

    @Test func redirectsPointWhereAsked() async throws {
        try await withServer { server in
            let target = server.url(for: .echo)
            let raw = try await RawSocket.exchange(
                port: server.port, path: server.url(for: .redirect(status: 307, to: target)))
            #expect(raw.response.status == 307)
            #expect(raw.response.header("Location") == target.absoluteString)
            let relative = try await RawSocket.exchange(
                port: server.port, path: server.url(for: .relativeRedirect(status: 301, to: "../echo?x=1")))
            #expect(relative.response.status == 301)
            #expect(relative.response.header("Location") == "../echo?x=1")

            // URLSession follows a chain to its end.
            server.resetRecords()
            let (data, response) = try await URLSession.shared.data(from: server.url(for: .redirectChain(count: 3)))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(try JSONDecoder().decode(EchoReply.self, from: data).path == "/redirect-chain/0")
            #expect(server.recordedRequests.map(\.path) == (0...3).reversed().map { "/redirect-chain/\($0)" })
        }
    }

    @Test func basicAndBearerAuthChallengeUntilTheCredentialsMatch() async throws {
        try await withServer { server in
            let basic = server.url(for: .basicAuth(user: "ada", password: "p@ss/word"))
            let denied = try await RawSocket.exchange(port: server.port, path: basic)
            #expect(denied.response.status == 401)
            #expect(denied.response.header("WWW-Authenticate")?.hasPrefix("Basic ") == true)
            let credentials = Data("ada:p@ss/word".utf8).base64EncodedString()
            let wrong = Data("ada:nope".utf8).base64EncodedString()
            #expect(
                try await RawSocket.exchange(
                    port: server.port, path: basic, headers: [("Authorization", "Basic \(wrong)")]
                ).response.status == 401)
            let allowed = try await RawSocket.exchange(
                port: server.port, path: basic, headers: [("Authorization", "Basic \(credentials)")])
            #expect(allowed.response.status == 200)

            let bearer = server.url(for: .bearer(token: "t0k3n"))
            let none = try await RawSocket.exchange(port: server.port, path: bearer)
            #expect(none.response.status == 401)
            #expect(none.response.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            let bad = try await RawSocket.exchange(
                port: server.port, path: bearer, headers: [("Authorization", "Bearer nope")])
            #expect(bad.response.header("WWW-Authenticate")?.contains("invalid_token") == true)
            var request = URLRequest(url: bearer)
            request.setValue("Bearer t0k3n", forHTTPHeaderField: "Authorization")
            let (_, ok) = try await URLSession.shared.data(for: request)
            #expect((ok as? HTTPURLResponse)?.statusCode == 200)
        }
    }

    @Test func cookiesAreEchoedAndSet() async throws {
        try await withServer { server in
            let echoed = try await RawSocket.exchange(
                port: server.port, path: server.url(for: .cookies), headers: [("Cookie", "a=1; b=two")])
            let json = try #require(try JSONSerialization.jsonObject(with: echoed.response.body) as? [String: Any])
            #expect(json["cookies"] as? [String: String] == ["a": "1", "b": "two"])
            #expect(json["header"] as? String == "a=1; b=two")

            let set = try await RawSocket.exchange(
                port: server.port, path: server.url(for: .setCookies(["z": "26", "a": "1"])))
            #expect(set.response.headers.filter { $0.0 == "Set-Cookie" }.map(\.1) == ["a=1; Path=/", "z=26; Path=/"])
        }
    }

    @Test func responseHeadersComeBackInOrder() async throws {
        try await withServer { server in
            let fields = [("X-B", "2"), ("X-A", "1"), ("X-B", "3"), ("Content-Type", "text/x-odd")]
            let raw = try await RawSocket.exchange(port: server.port, path: server.url(for: .responseHeaders(fields)))
            #expect(raw.response.status == 200)
            let sent = raw.response.headers.filter { ["X-B", "X-A", "Content-Type"].contains($0.0) }
            #expect(sent.map(\.0) == fields.map(\.0))
            #expect(sent.map(\.1) == fields.map(\.1))
        }
    }

    @Test func rangesHonourRangeAndIfRange() async throws {
        try await withServer { server in
            let url = server.url(for: .range(bytes: 1000))
            let whole = try await RawSocket.exchange(port: server.port, path: url)
            #expect(whole.response.status == 200)
            #expect(whole.response.header("Accept-Ranges") == "bytes")
            #expect(whole.response.body == MockServer.deterministicBytes(count: 1000))
            let etag = try #require(whole.response.header("ETag"))

            func fetch(_ headers: [(String, String)]) async throws -> RawResponse {
                try await RawSocket.exchange(port: server.port, path: url, headers: headers).response
            }
            let middle = try await fetch([("Range", "bytes=10-19")])
            #expect(middle.status == 206)
            #expect(middle.header("Content-Range") == "bytes 10-19/1000")
            #expect(middle.body == MockServer.deterministicBytes(count: 10, offset: 10))
            #expect(middle.header("X-Checksum") == MockServer.checksum(of: middle.body))
            let tail = try await fetch([("Range", "bytes=990-")])
            #expect(tail.header("Content-Range") == "bytes 990-999/1000")
            #expect(tail.body == MockServer.deterministicBytes(count: 10, offset: 990))
            let suffix = try await fetch([("Range", "bytes=-5")])
            #expect(suffix.body == MockServer.deterministicBytes(count: 5, offset: 995))
            let current = try await fetch([("Range", "bytes=500-"), ("If-Range", etag)])
            #expect(current.status == 206)
            let stale = try await fetch([("Range", "bytes=500-"), ("If-Range", "\"other\"")])
            #expect(stale.status == 200)
            #expect(stale.body.count == 1000)
            let beyond = try await fetch([("Range", "bytes=5000-")])
            #expect(beyond.status == 416)
            #expect(beyond.header("Content-Range") == "bytes */1000")
        }
    }

    @Test func flakyFailsThenSucceeds() async throws {
        try await withServer { server in
            let url = server.url(for: .flaky(key: "job", failures: 2, status: 503, retryAfter: "1"))
            var statuses: [Int] = []
            var retryAfters: [String?] = []
            for _ in 0..<4 {
                let (_, response) = try await URLSession.shared.data(from: url)
                let http = try #require(response as? HTTPURLResponse)
                statuses.append(http.statusCode)
                retryAfters.append(http.value(forHTTPHeaderField: "Retry-After"))
            }
            #expect(statuses == [503, 503, 200, 200])
            #expect(retryAfters == ["1", "1", nil, nil])
            // Keys count separately.
            let (_, other) = try await URLSession.shared.data(
                from: server.url(for: .flaky(key: "other", failures: 1, status: 429)))
            #expect((other as? HTTPURLResponse)?.statusCode == 429)
        }
    }

    @Test func scriptsAnswerInOrderThenRepeatTheLast() async throws {
        try await withServer { server in
            server.script(
                "users/42",
                .json(#"{"id":42}"#, status: 201),
                ScriptedResponse(status: 500, headers: ["X-Try": "2"], body: Data("oops".utf8)),
                .text("done", delay: .milliseconds(30)))
            let url = server.url(for: .scripted(path: "users/42"))
            #expect(url.absoluteString == server.baseURL.absoluteString + "users/42")
            var seen: [(Int, String)] = []
            for _ in 0..<4 {
                let (data, response) = try await URLSession.shared.data(from: url)
                seen.append(((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self)))
            }
            #expect(seen.map(\.0) == [201, 500, 200, 200])
            #expect(seen.map(\.1) == [#"{"id":42}"#, "oops", "done", "done"])
            #expect(server.requests(to: "/users/42").count == 4)
            let (_, unscripted) = try await URLSession.shared.data(from: server.url(for: .scripted(path: "nobody")))
            #expect((unscripted as? HTTPURLResponse)?.statusCode == 404)
        }
    }

    // MARK: Faults, through a raw socket

    @Test func faultsBreakTheConnectionAsDescribed() async throws {
        try await withServer { server in
            let before = try await RawSocket.exchange(
                port: server.port, path: server.url(for: .fault(.closeBeforeHeaders)))
            #expect(before.raw.isEmpty)
            #expect(before.end == .eof)

            let afterHeaders = try await RawSocket.exchange(
                port: server.port, path: server.url(for: .fault(.closeAfterHeaders)))
            #expect(afterHeaders.response.status == 200)
            #expect(afterHeaders.response.header("Content-Length") == "1024")
            #expect(afterHeaders.response.body.isEmpty)
            #expect(afterHeaders.end == .eof)

            let short = try await RawSocket.exchange(port: server.port, path: server.url(for: .fault(.shortBody)))
            #expect(short.response.header("Content-Length") == "1024")
            #expect(short.response.body == MockServer.deterministicBytes(count: 512))
            #expect(short.end == .eof)

            let reset = try await RawSocket.exchange(port: server.port, path: server.url(for: .fault(.resetMidBody)))
            #expect(reset.response.status == 200)
            #expect(reset.response.header("Content-Length") == "\(1 << 20)")
            #expect(reset.response.body.count <= 64 << 10)
            #expect(reset.end == .reset)

            let malformed = try await RawSocket.exchange(
                port: server.port, path: server.url(for: .fault(.malformedStatusLine)))
            #expect(String(decoding: malformed.raw.prefix(15), as: UTF8.self) == "HTTP/1.1 2OO OK")

            let huge = try await RawSocket.exchange(
                port: server.port, path: server.url(for: .fault(.hugeHeaders(bytes: 200_000))))
            #expect(huge.response.status == 200)
            #expect(huge.response.headLength >= 200_000)
            #expect(huge.response.body == Data("ok".utf8))

            #expect(server.requests(to: "/fault/close-before-headers").count == 1)
        }
    }

    @Test func endlessBodyKeepsGoingUntilTheClientLeaves() async throws {
        try await withServer { server in
            let socket = try RawSocket(port: server.port)
            try socket.send(RawSocket.request(path: server.url(for: .fault(.endlessBody))))
            let received = try await socket.readUntil { $0.count >= 4 << 20 }
            socket.close()
            let response = try #require(RawResponse(parsing: received.data, complete: false))
            #expect(response.header("Transfer-Encoding") == "chunked")
            #expect(received.data.count >= 4 << 20)
            // The server notices and stays healthy.
            let (_, ok) = try await URLSession.shared.data(from: server.url(for: .status(200)))
            #expect((ok as? HTTPURLResponse)?.statusCode == 200)
        }
    }

    @Test func neverRespondReadsTheRequestAndStaysSilent() async throws {
        try await withServer { server in
            let socket = try RawSocket(port: server.port)
            defer { socket.close() }
            try socket.send(
                RawSocket.request(path: server.url(for: .fault(.neverRespond)), method: "POST", body: Data("x".utf8)))
            let silence = try await socket.readUntil(timeout: .milliseconds(300)) { !$0.isEmpty }
            #expect(silence.data.isEmpty)
            #expect(silence.end == .timeout)
            #expect(server.requests(to: .fault(.neverRespond)).first?.body == Data("x".utf8))
        }
    }

    // MARK: Connections, recording, limits

    @Test func keepAlivePipeliningAndConnectionClose() async throws {
        try await withServer { server in
            let socket = try RawSocket(port: server.port)
            defer { socket.close() }
            // Two requests in one write (pipelined), the second asking to close.
            let first = RawSocket.request(path: server.url(for: .bytes(10)), close: false)
            let second = RawSocket.request(path: server.url(for: .status(202)), close: true)
            try socket.send(first + second)
            let all = try await socket.readUntil { _ in false }
            #expect(all.end == .eof)
            let responses = RawResponse.parseAll(all.data)
            #expect(responses.map(\.status) == [200, 202])
            #expect(responses.first?.body == MockServer.deterministicBytes(count: 10))
            #expect(responses.last?.header("Connection") == "close")
            let records = server.recordedRequests
            #expect(records.count == 2)
            #expect(Set(records.map(\.connectionID)).count == 1)
            #expect(records.first?.remotePort == socket.localPort)
            #expect(server.connectionCount == 1)

            let other = try await RawSocket.exchange(port: server.port, path: server.url(for: .echo))
            #expect(other.response.status == 200)
            #expect(server.connectionCount == 2)
            #expect(server.recordedRequests.last?.connectionID != records.first?.connectionID)
            server.resetRecords()
            #expect(server.recordedRequests.isEmpty)
            #expect(server.connectionCount == 0)
        }
    }

    @Test func expectContinueIsAnswered() async throws {
        try await withServer { server in
            let socket = try RawSocket(port: server.port)
            defer { socket.close() }
            let url = server.url(for: .echo)
            try socket.send(
                Data(
                    "POST \(url.path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n"
                        .utf8))
            let interim = try await socket.readUntil { $0.range(of: Data("\r\n\r\n".utf8)) != nil }
            #expect(String(decoding: interim.data, as: UTF8.self).hasPrefix("HTTP/1.1 100 Continue"))
            try socket.send(Data("hello".utf8))
            let rest = try await socket.readUntil { _ in false }
            let response = try #require(RawResponse(parsing: rest.data))
            #expect(response.status == 200)
            #expect(try JSONDecoder().decode(EchoReply.self, from: response.body).body == "hello")
        }
    }

    @Test func bodiesBeyondTheRecordingLimitKeepLengthAndChecksum() async throws {
        try await withServer { server in
            let length = MockServer.recordedBodyLimit + 1000
            let socket = try RawSocket(port: server.port)
            defer { socket.close() }
            let head =
                "PUT \(server.url(for: .echo).path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n"
            try socket.send(Data(head.utf8))
            try await socket.sendDeterministic(count: length)
            let reply = try await socket.readUntil { _ in false }
            let response = try #require(RawResponse(parsing: reply.data))
            let echo = try JSONDecoder().decode(EchoReply.self, from: response.body)
            #expect(echo.bodyLength == length)
            #expect(echo.bodyBase64 == nil)
            let recorded = try #require(server.recordedRequests.last)
            #expect(recorded.bodyLength == length)
            #expect(!recorded.isBodyRecorded)
            #expect(recorded.body.isEmpty)
            #expect(recorded.bodyChecksum == MockServer.deterministicChecksum(count: length))
        }
    }

    @Test func aThousandRequestsWithAHundredInFlight() async throws {
        try await withServer { server in
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 100
            let session = URLSession(configuration: configuration)
            // A failed request counts as a failure instead of throwing out of the group: leaving the
            // group early cancels the requests still running, and cancelling URLSession's async
            // requests while they complete can deadlock FoundationNetworking (seen once here: the
            // canceller waits for the session's queue, which waits for the task's status lock).
            let succeeded = await withTaskGroup(of: Bool.self) { group in
                var started = 0
                var succeeded = 0
                func add() {
                    let url = server.url(for: .bytes(started % 2000))
                    started += 1
                    group.addTask {
                        do {
                            let (data, response) = try await session.data(from: url)
                            let checksum = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Checksum")
                            return checksum == MockServer.checksum(of: data)
                        } catch {
                            Issue.record("\(url): \(error)")
                            return false
                        }
                    }
                }
                for _ in 0..<100 { add() }
                while let ok = await group.next() {
                    if ok { succeeded += 1 }
                    if started < 1000 { add() }
                }
                return succeeded
            }
            session.finishTasksAndInvalidate()
            #expect(succeeded == 1000)
            #expect(server.recordedRequests.count == 1000)
            #expect(Set(server.recordedRequests.map(\.sequenceNumber)).count == 1000)
        }
    }

    // MARK: Lifecycle

    @Test func twoServersRunSideBySide() async throws {
        try await withServer { first in
            try await withServer { second in
                #expect(first.port != second.port)
                #expect(first.baseURL.absoluteString == "http://127.0.0.1:\(first.port)/")
                _ = try await URLSession.shared.data(from: first.url(for: .echo))
                _ = try await URLSession.shared.data(from: second.url(for: .status(201)))
                _ = try await URLSession.shared.data(from: second.url(for: .status(202)))
                #expect(first.recordedRequests.map(\.path) == ["/echo"])
                #expect(second.recordedRequests.map(\.path) == ["/status/201", "/status/202"])
            }
        }
    }

    @Test func shutdownClosesEverythingAndIsIdempotent() async throws {
        try await withServer { server in
            // Connections that are busy forever must not hold shutdown up.
            let silent = try RawSocket(port: server.port)
            try silent.send(RawSocket.request(path: server.url(for: .fault(.neverRespond))))
            let endless = try RawSocket(port: server.port)
            try endless.send(RawSocket.request(path: server.url(for: .fault(.endlessBody))))
            _ = try await endless.readUntil { $0.count > 100_000 }
            let clock = ContinuousClock()
            let start = clock.now
            try await server.shutdown()
            try await server.shutdown()
            // Only a hang detector: shutdown must not wait for busy connections to finish (they never
            // would). Not a timing claim, so the bound is generous enough for a loaded CI machine.
            #expect(clock.now - start < .seconds(60))
            let afterwards = try await silent.readUntil { _ in false }
            #expect(afterwards.end != .timeout)
            silent.close()
            endless.close()
            #expect(throws: (any Error).self) { try RawSocket(port: server.port) }
        }
    }

    @Test func aForgottenServerStopsItself() async throws {
        var port = 0
        do {
            let server = try await MockServer.start()
            port = server.port
            _ = try await URLSession.shared.data(from: server.url(for: .echo))
        }
        // Dropping the last reference shuts the server down in the background.
        try await eventually("the forgotten server refuses connections", timeout: .seconds(2)) {
            guard let socket = try? RawSocket(port: port) else { return true }
            socket.close()
            return false
        }
    }
}

// MARK: - A raw loopback client

/// A blocking TCP client on 127.0.0.1 whose waits run on a dispatch queue, off the test's cooperative threads.
private struct RawSocket: Sendable {
    /// How a read loop stopped.
    enum End: Equatable, Sendable {
        case satisfied, eof, reset, timeout
    }

    /// What a whole request-response exchange produced.
    struct Exchange: Sendable {
        var raw: Data
        var end: End
        var bodyLength = 0
        var bodyChecksum = ""
        var response: RawResponse { RawResponse(parsing: raw, complete: false) ?? RawResponse() }
    }

    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EBADF) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .ECONNREFUSED)
        }
    }

    /// The client's own port, as the server records it.
    var localPort: Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    func send(_ data: Data) throws {
        try data.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let n = Glibc.send(fd, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                guard n > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPIPE) }
                sent += n
            }
        }
    }

    /// Sends `count` deterministic bytes in 1 MiB writes.
    func sendDeterministic(count: Int) async throws {
        try await offPool {
            let block = MockServer.deterministicBytes(count: 251 * 4096)  // whole periods: every block is the same
            var sent = 0
            while sent < count {
                let length = min(block.count, count - sent)
                try send(block.prefix(length))
                sent += length
            }
        }
    }

    /// Reads until `done` holds for everything read so far, the peer closes or resets, or `timeout` passes.
    func readUntil(
        timeout: Duration = .seconds(20), _ done: @escaping @Sendable (Data) -> Bool
    ) async throws -> (data: Data, end: End) {
        try await offPool {
            var data = Data()
            let end = read(timeout: timeout) { chunk in
                data.append(chunk)
                return done(data)
            }
            return (data, end)
        }
    }

    /// Calls `consume` with each piece read, until it returns true, the peer closes or resets, or `timeout` passes.
    func read(timeout: Duration, _ consume: (Data) -> Bool) -> End {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return .timeout }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(
                &poller, 1,
                Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1))
            if ready == 0 { return .timeout }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n == 0 { return .eof }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .reset
            }
            if consume(Data(buffer[0..<n])) { return .satisfied }
        }
    }

    func close() { Glibc.close(fd) }

    /// An HTTP/1.1 request for `url`'s path and query.
    static func request(
        path url: URL, method: String = "GET", headers: [(String, String)] = [], body: Data? = nil, close: Bool = true
    ) -> Data {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let query = components?.percentEncodedQuery.map { "?\($0)" } ?? ""
        var head =
            "\(method) \(components?.percentEncodedPath ?? "/")\(query) HTTP/1.1\r\nHost: \(url.host ?? ""):\(url.port ?? 80)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        if close { head += "Connection: close\r\n" }
        return Data((head + "\r\n").utf8) + (body ?? Data())
    }

    /// Opens a connection, sends one request with `Connection: close`, reads until the server closes.
    ///
    /// With `streamChecksum`, the body is only counted and checksummed, not kept.
    static func exchange(
        port: Int, path url: URL, method: String = "GET", headers: [(String, String)] = [], streamChecksum: Bool = false
    ) async throws -> Exchange {
        let socket = try RawSocket(port: port)
        defer { socket.close() }
        try socket.send(request(path: url, method: method, headers: headers))
        return try await offPool {
            var exchange = Exchange(raw: Data(), end: .eof)
            var checksum = MockServer.Checksum()
            var headDone = false
            exchange.end = socket.read(timeout: .seconds(20)) { chunk in
                guard streamChecksum else {
                    exchange.raw.append(chunk)
                    return false
                }
                if headDone {
                    checksum.update(chunk)
                    exchange.bodyLength += chunk.count
                    return false
                }
                exchange.raw.append(chunk)
                if let end = exchange.raw.range(of: Data("\r\n\r\n".utf8)) {
                    headDone = true
                    let body = exchange.raw[end.upperBound...]
                    checksum.update(Data(body))
                    exchange.bodyLength += body.count
                    exchange.raw = Data(exchange.raw[..<end.upperBound])
                }
                return false
            }
            exchange.bodyChecksum = checksum.value
            return exchange
        }
    }
}

/// Runs blocking work on a dispatch queue and awaits it.
private func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}

/// A response parsed from raw bytes, framing kept visible (chunks, head length).
private struct RawResponse: Sendable {
    var status = 0
    var headers: [(String, String)] = []
    var body = Data()
    var chunks: [Data] = []
    var headLength = 0
    /// How many bytes of the input this response took.
    var consumed = 0

    init() {}

    /// Parses one response from the start of `data`; with `complete`, nil unless the body is all there.
    init?(parsing data: Data, complete: Bool = true) {
        let bytes = [UInt8](data)
        guard let headEnd = Data(bytes).range(of: Data("\r\n\r\n".utf8))?.upperBound else { return nil }
        let lines = String(decoding: bytes[0..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        self.status = status
        headLength = headEnd
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var position = headEnd
        if header("Transfer-Encoding")?.lowercased() == "chunked" {
            var finished = false
            while let lineEnd = Data(bytes[position...]).range(of: Data("\r\n".utf8))?.lowerBound {
                let sizeLine = String(decoding: bytes[position..<(position + lineEnd)], as: UTF8.self)
                guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else { break }
                let start = position + lineEnd + 2
                if size == 0 {
                    position = min(bytes.count, start + 2)
                    finished = true
                    break
                }
                let available = min(size, bytes.count - start)
                chunks.append(Data(bytes[start..<(start + available)]))
                body.append(chunks.last!)
                guard available == size else {
                    position = bytes.count
                    break
                }
                position = start + size + 2
                guard position <= bytes.count else { break }
            }
            if complete && !finished { return nil }
        } else if let length = header("Content-Length").flatMap({ Int($0) }) {
            let end = min(bytes.count, headEnd + length)
            if complete && end < headEnd + length { return nil }
            body = Data(bytes[headEnd..<end])
            position = end
        } else {
            body = Data(bytes[headEnd...])
            position = bytes.count
        }
        consumed = position
    }

    /// The first value of `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// Every complete response in `data`, in order (interim 1xx responses included).
    static func parseAll(_ data: Data) -> [RawResponse] {
        var responses: [RawResponse] = []
        var rest = data
        while !rest.isEmpty, let response = RawResponse(parsing: rest), response.consumed > 0 {
            responses.append(response)
            rest = Data(rest.dropFirst(response.consumed))
        }
        return responses
    }
}
