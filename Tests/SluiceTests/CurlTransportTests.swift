import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Testing

@Suite("CurlTransport against MockServer")
struct CurlTransportTests {
    @Test func everyMethodIsSentAsIs() async throws {
        try await withServer { server, transport in
            for method: HTTPMethod in [.get, .post, .put, .patch, .delete, .options, "PROPFIND"] {
                let response = try await transport.send(method, server.url(for: .echo))
                let echo = try JSONDecoder().decode(EchoReply.self, from: response.body)
                #expect(response.status == 200)
                #expect(echo.method == method.rawValue)
            }
            let head = try await transport.send(.head, server.url(for: .bytes(100)))
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(server.recordedRequests.map(\.method).last == "HEAD")
        }
    }

    @Test func headersAndBodiesArriveExactly() async throws {
        try await withServer { server, transport in
            let body = Data((0..<5_000).map { UInt8($0 % 256) })
            let headers: HTTPHeaders = ["X-One": "1", "X-Repeat": "a", "x-repeat": "b", "X-Empty": ""]
            let response = try await transport.send(.post, server.url(for: .echo), headers: headers, body: .data(body))
            #expect(response.status == 200)
            let recorded = try #require(server.recordedRequests.last)
            #expect(recorded.body == body)
            #expect(recorded.headers["X-One"] == "1")
            #expect(recorded.headers.values(for: "X-Repeat") == ["a", "b"])
            #expect(recorded.headers["X-Empty"] == "")
            #expect(recorded.headers["Content-Length"] == "5000")
            #expect(!recorded.headers.contains("Expect"))
            // libcurl would add a form Content-Type to a POST; Sluice sends none that was not asked for.
            #expect(!recorded.headers.contains("Content-Type"))
        }
    }

    @Test func aHeaderNameGoesOutInTheCaseGivenEvenRightAfterAnotherCase() async throws {
        // A reused handle keeps its header list while the headers stay the same: the same names
        // in another case are other lines, so the list is made anew.
        try await withServer { server, transport in
            for name in ["X-Case", "x-case", "X-CASE"] {
                _ = try await transport.send(.get, server.url(for: .echo), headers: [name: "1"])
                let recorded = try #require(server.recordedRequests.last)
                #expect(recorded.headers.contains { $0.name == name && $0.value == "1" }, "\(name)")
            }
        }
    }

    @Test func aPooledHandleSendsEveryRequestToItsOwnURL() async throws {
        // A pooled handle keeps its parsed URL while requests repeat it; every change must reach
        // libcurl, whatever the handle sent before, including a URL libcurl refused.
        try await withServer { server, transport in
            let one = server.url(for: .echo, query: [URLQueryItem(name: "n", value: "1")])
            let two = server.url(for: .echo, query: [URLQueryItem(name: "n", value: "2")])
            let bytes = server.url(for: .bytes(3))
            let sent = [one, one, two, bytes, one]
            for url in sent { _ = try await transport.send(url) }
            // Sluice's own checks let this port through; libcurl's parser refuses it.
            let refused = try #require(URL(string: "http://127.0.0.1:99999\(one.path)"))
            let error = await expectFailure(.invalidURL) { try await transport.send(refused) }
            #expect(error?.message.contains("99999") == true, "\(String(describing: error))")
            _ = try await transport.send(two)
            let targets = (sent + [two]).map { url in url.path + (url.query.map { "?\($0)" } ?? "") }
            #expect(server.recordedRequests.map(\.target) == targets)
        }
    }

    @Test func responseHeadersKeepOrderAndRepeats() async throws {
        try await withServer { server, transport in
            let response = try await transport.send(
                server.url(
                    for: .responseHeaders([("X-B", "2"), ("X-A", "1"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")])))
            #expect(response.headers.values(for: "set-cookie") == ["a=1", "b=2"])
            let names = response.headers.map(\.name).filter { $0.lowercased().hasPrefix("x-") }
            #expect(names == ["X-B", "X-A"])
        }
    }

    @Test func bodiesUploadFromDataFilesAndProviders() async throws {
        try await withServer { server, transport in
            let size = 3 * 1024 * 1024 + 17
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-upload-\(UUID()).bin")
            try MockServer.deterministicBytes(count: size).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let expected = MockServer.deterministicChecksum(count: size)

            _ = try await transport.send(.put, server.url(for: .echo), body: .file(file))
            #expect(server.recordedRequests.last?.bodyChecksum == expected)
            #expect(server.recordedRequests.last?.bodyLength == size)

            // Unknown length: sent chunked.
            let provider = BodyProvider(length: nil) { DeterministicReader(count: size) }
            _ = try await transport.send(.post, server.url(for: .echo), body: .stream(provider))
            #expect(server.recordedRequests.last?.bodyChecksum == expected)
            #expect(server.recordedRequests.last?.headers["Transfer-Encoding"]?.lowercased() == "chunked")

            // POST and PUT with no body still say Content-Length: 0.
            _ = try await transport.send(.post, server.url(for: .echo))
            #expect(server.recordedRequests.last?.headers["Content-Length"] == "0")
        }
    }

    @Test func thousandRequestsWithHundredInFlightAllComplete() async throws {
        try await withServer { server, transport in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                var started = 0
                var passed = 0
                func add() {
                    let size = 1 + (started * 37) % 4096
                    let url = server.url(for: .bytes(size))
                    group.addTask {
                        let response = try await transport.send(url)
                        return response.status == 200 && response.body.count == size
                            && MockServer.checksum(of: response.body) == response.headers["X-Checksum"]
                    }
                    started += 1
                }
                for _ in 0..<100 { add() }
                while let ok = try await group.next() {
                    if ok { passed += 1 }
                    if started < 1_000 { add() }
                }
                #expect(passed == 1_000)
            }
            #expect(server.connectionCount <= 100)
        }
    }

    @Test func connectionsAreReusedAndMetricsSayHow() async throws {
        try await withServer { server, transport in
            let first = try await transport.send(server.url(for: .bytes(10)))
            let second = try await transport.send(server.url(for: .bytes(10)))
            let firstMetrics = try #require(first.metrics)
            let secondMetrics = try #require(second.metrics)
            #expect(!firstMetrics.reusedConnection)
            #expect(secondMetrics.reusedConnection)
            #expect(server.connectionCount == 1)
            // Connecting took time on the first; nothing was connected for the second.
            #expect(firstMetrics.connect > .zero)
            #expect(firstMetrics.connect <= firstMetrics.total)
            #expect(secondMetrics.connect == .zero)
            #expect(firstMetrics.tlsHandshake == .zero && secondMetrics.tlsHandshake == .zero)
            #expect(firstMetrics.remoteAddress == "127.0.0.1:\(server.port)")
            #expect(firstMetrics.total > .zero)
            #expect(firstMetrics.bytesReceived == 10)
            #expect(firstMetrics.httpVersion == .http1_1)
        }
    }

    @Test func compressedAndChunkedBodiesAreDecoded() async throws {
        try await withServer { server, transport in
            let gzip = try await transport.send(server.url(for: .gzip(bytes: 100_000)))
            #expect(gzip.body.count == 100_000)
            #expect(MockServer.checksum(of: gzip.body) == gzip.headers["X-Checksum"])
            let chunked = try await transport.send(server.url(for: .chunked(chunks: ["hello ", "chunked ", "world"])))
            #expect(String(decoding: chunked.body, as: UTF8.self) == "hello chunked world")
        }
    }

    @Test func redirectsAreReturnedNotFollowed() async throws {
        try await withServer { server, transport in
            let response = try await transport.send(server.url(for: .redirect(status: 302, to: server.url(for: .echo))))
            #expect(response.status == 302)
            #expect(response.headers["Location"] == server.url(for: .echo).absoluteString)
            #expect(server.recordedRequests.count == 1)
        }
    }

    @Test func invalidRequestsAreRefusedBeforeAnythingIsSent() async throws {
        try await withServer { server, _ in
            var injected = Request(url: server.url(for: .echo))
            injected.headers["X-Evil"] = "1\r\nX-Injected: yes"
            #expect(throws: SluiceError.self) { try injected.prepared() }
            do throws(SluiceError) {
                _ = try injected.prepared()
            } catch {
                #expect(error.code == .invalidHeader)
            }
            var badName = Request(url: server.url(for: .echo))
            badName.headers.add(name: "Bad Name", value: "x")
            #expect(throws: SluiceError.self) { try badName.prepared() }
            for url in ["ftp://127.0.0.1/x", "file:///etc/passwd", "gopher://127.0.0.1/"] {
                do throws(SluiceError) {
                    _ = try Request(url: URL(string: url)!).prepared()
                    Issue.record("\(url) was accepted")
                } catch {
                    #expect(error.code == .invalidURL)
                }
            }
            let missing = Request(
                method: .post, url: server.url(for: .echo), body: .file(URL(fileURLWithPath: "/nonexistent/file")))
            do throws(SluiceError) {
                _ = try missing.prepared()
                Issue.record("a missing file was accepted")
            } catch {
                #expect(error.code == .invalidBody)
            }
            // Methods: any HTTP token goes (GET and POST skip the byte scan), anything else is refused.
            for method in ["GET", "POST", "get", "PATCH", "M-SEARCH"] {
                #expect(throws: Never.self) {
                    try Request(method: HTTPMethod(rawValue: method), url: server.url(for: .echo)).prepared()
                }
            }
            for method in ["", "GE T", "POST\r\nX: y", "GET(", "PÖST"] {
                let error = #expect(throws: SluiceError.self, "\(method.debugDescription)") {
                    try Request(method: HTTPMethod(rawValue: method), url: server.url(for: .echo)).prepared()
                }
                #expect(error?.code == .invalidMethod, "\(method.debugDescription)")
            }
            // Options, read in place from the request: each check, and the limits that are allowed.
            let invalid: [@Sendable (inout RequestOptions) -> Void] = [
                { $0.connectTimeout = .zero }, { $0.idleTimeout = .zero }, { $0.timeout = .zero },
                { $0.maximumBodySize = -1 }, { $0.maximumHeaderSize = 0 },
            ]
            for (index, change) in invalid.enumerated() {
                var request = Request(url: server.url(for: .echo))
                change(&request.options)
                do throws(SluiceError) {
                    _ = try request.prepared()
                    Issue.record("invalid options \(index) were accepted")
                } catch {
                    #expect(error.code == .invalidOption)
                }
            }
            var boundaries = Request(url: server.url(for: .echo))
            boundaries.options.maximumBodySize = 0
            boundaries.options.timeout = nil
            #expect(throws: Never.self) { try boundaries.prepared() }
            #expect(server.recordedRequests.isEmpty)
        }
    }

    /// Timeouts longer than 64 bits of milliseconds hold (`.seconds(Int64.max)`, "never") are as
    /// long as libcurl can wait: converting them trapped on the transport's thread once.
    @Test func timeoutsTooLongForMillisecondsAreAsLongAsCanBe() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            var request = Request(url: server.url(for: .echo))
            request.options.connectTimeout = .seconds(Int64.max)
            request.options.timeout = .seconds(Int64.max)
            request.options.idleTimeout = .seconds(Int64.max)
            #expect(request.curlDescription.contains("--max-time \(Int64.max / 1000)"))
            let response = try await client.send(request).value
            #expect(response.status == 200)
        }
    }

    /// A request that one of its options refuses (a proxy on port 0) leaves its output file as it
    /// was: the file, which opening empties, is opened once every option was taken.
    @Test func aRequestRefusedByAnOptionLeavesItsOutputFileAsItWas() async throws {
        try await withServer { server, transport in
            try await withDownloadDirectory { directory in
                let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
                let file = directory.appendingPathComponent("kept.bin")
                try Data("precious".utf8).write(to: file)
                var request = Request(url: server.url(for: .echo))
                request.options.destination = .file(file)
                request.options.proxy = .http(host: "proxy.test", port: 0)
                await expectFailure(.invalidOption) { try await client.send(request).value }
                #expect(try Data(contentsOf: file) == Data("precious".utf8))
                #expect(server.recordedRequests.isEmpty)
            }
        }
    }

    @Test func downloadsToAFileStreamWithTheRightChecksum() async throws {
        try await withServer { server, transport in
            let size = 1 << 30
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-download-\(UUID()).bin")
            defer { try? FileManager.default.removeItem(at: file) }
            var options = RequestOptions()
            options.destination = .file(file)
            options.maximumBodySize = Int64(size)
            let response = try await transport.send(server.url(for: .bytes(size)), options: options)
            #expect(response.status == 200)
            #expect(response.fileURL == file)
            #expect(response.body.isEmpty)
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.size] as? NSNumber)?.intValue == size)
            #expect(try await onOwnThread { try checksum(ofFile: file) } == response.headers["X-Checksum"])
        }
    }

    /// The file is opened at its decoded path: names with characters a URL escapes (a space, a
    /// literal `%41`) and URLs relative to a base reach the same file as `FileManager` does.
    @Test func downloadsToFilesWhoseURLsAreEscapedOrRelative() async throws {
        try await withServer { server, transport in
            let directory = FileManager.default.temporaryDirectory
            let name = "sluice download %41 \(UUID()).bin"
            let files = [
                directory.appendingPathComponent(name),
                URL(fileURLWithPath: "relative-" + name, relativeTo: directory),
            ]
            for file in files {
                defer { try? FileManager.default.removeItem(at: file) }
                var options = RequestOptions()
                options.destination = .file(file)
                let response = try await transport.send(server.url(for: .bytes(1000)), options: options)
                #expect(response.status == 200)
                let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
                #expect((attributes[.size] as? NSNumber)?.intValue == 1000)
            }
        }
    }
}

/// Streams a file through MockServer's checksum without loading it whole.
func checksum(ofFile url: URL) throws -> String {
    let handle = try FileHandle(forReadingFrom: url)
    defer { try? handle.close() }
    var checksum = MockServer.Checksum()
    while let chunk = try handle.read(upToCount: 4 << 20), !chunk.isEmpty { checksum.update(chunk) }
    return checksum.value
}

/// A body reader that produces MockServer's deterministic bytes.
final class DeterministicReader: BodyReader {
    private let count: Int
    private var offset = 0

    init(count: Int) { self.count = count }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, count - offset)
        for i in 0..<n { buffer[i] = MockServer.deterministicByte(at: offset + i) }
        offset += n
        return n
    }
}

@Suite("Body providers")
struct BodyProviderTests {
    @Test func aProviderOfDataIsSentWithItsLength() async throws {
        try await withServer { server, transport in
            let bytes = MockServer.deterministicBytes(count: 70_000)
            _ = try await transport.send(.put, server.url(for: .echo), body: .stream(BodyProvider(data: bytes)))
            let recorded = try #require(server.recordedRequests.last)
            #expect(recorded.body == bytes)
            #expect(recorded.headers["Content-Length"] == "70000")
        }
    }
}
