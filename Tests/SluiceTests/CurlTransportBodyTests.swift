import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Testing

/// Small in-memory bodies go to libcurl whole and leave with the request's head; larger ones, files
/// and providers are read in pieces. A pooled handle passes from one kind to the other.
@Suite("CurlTransport request bodies")
struct CurlTransportBodyTests {
    private static let kilobyte = Data((0..<1_024).map { UInt8(($0 * 7) % 256) })

    @Test(arguments: [HTTPMethod.post, .put, .patch, .delete, .get, "PROPFIND"])
    func aSmallBodyArrivesExactlyWithNoHeadersItDidNotAskFor(method: HTTPMethod) async throws {
        try await withServer { server, transport in
            _ = try await transport.send(method, server.url(for: .echo), body: .data(Self.kilobyte))
            let recorded = try #require(server.recordedRequests.last)
            #expect(recorded.method == method.rawValue)
            #expect(recorded.body == Self.kilobyte)
            #expect(recorded.headers["Content-Length"] == "1024")
            // libcurl would call a body it holds a form, and ask to continue before sending it.
            #expect(!recorded.headers.contains("Content-Type"))
            #expect(!recorded.headers.contains("Expect"))

            _ = try await transport.send(
                method, server.url(for: .echo), headers: ["Content-Type": "application/json"],
                body: .data(Data("{}".utf8)))
            let typed = try #require(server.recordedRequests.last)
            #expect(typed.headers.values(for: "Content-Type") == ["application/json"])
            #expect(typed.body == Data("{}".utf8))
        }
    }

    @Test func aPooledHandlePassesBetweenBodiesSentWithTheHeadAndBodiesReadInPieces() async throws {
        try await withServer { server, transport in
            let large = Data((0..<200_000).map { UInt8(($0 * 13) % 251) })
            let small = Data("small".utf8)
            let steps: [(HTTPMethod, RequestBody, Data)] = [
                (.post, .data(Self.kilobyte), Self.kilobyte),
                (.get, .empty, Data()),
                (.post, .data(large), large),
                (.put, .data(small), small),
                (.head, .empty, Data()),
                (.post, .data(Self.kilobyte), Self.kilobyte),
                (.post, .data(small), small),
                (.patch, .data(large), large),
                (.post, .empty, Data()),
                (.get, .empty, Data()),
            ]
            for (index, (method, body, expected)) in steps.enumerated() {
                let url = server.url(for: method == .head ? .bytes(10) : .echo)
                let response = try await transport.send(method, url, body: body)
                #expect(response.status == 200, "step \(index)")
                let recorded = try #require(server.recordedRequests.last)
                #expect(recorded.method == method.rawValue, "step \(index)")
                #expect(recorded.body == expected, "step \(index): \(recorded.body.count) bytes")
                if method == .get || method == .head {
                    #expect(!recorded.headers.contains("Content-Length"), "step \(index)")
                } else {
                    #expect(recorded.headers["Content-Length"] == "\(expected.count)", "step \(index)")
                }
            }
            // One connection, so one pooled handle, served every step.
            #expect(server.connectionCount == 1)
        }
    }

    /// Bodies sent with the head in a row with the same method only replace the handle's body; a
    /// change of method, of size in either direction, a body read in pieces (the read callback and
    /// its context set), or a request of another kind between them must still reach the server as
    /// made. (Whether a step took the shorter path is not observable here; what the server receives
    /// is.)
    @Test func bodiesSentWithTheHeadInARowKeepTheirMethodAndSize() async throws {
        try await withServer { server, transport in
            let small = Data("small".utf8)
            let twoKilobytes = Self.kilobyte + Self.kilobyte
            let large = Data((0..<200_000).map { UInt8(($0 * 11) % 253) })
            let steps: [(HTTPMethod, Data)] = [
                (.put, small), (.put, Self.kilobyte), (.put, small),
                (.post, Self.kilobyte), (.post, twoKilobytes), (.post, small),
                ("PROPFIND", small), ("PROPFIND", twoKilobytes),
                (.get, Data()), (.post, small), (.delete, Self.kilobyte), (.post, Self.kilobyte),
                // A plain GET, then a body read in pieces, between two bodies sent with the head.
                (.put, small), (.get, Data()), (.put, large), (.put, small),
                (.post, small), (.post, large), (.post, small),
            ]
            for (index, (method, body)) in steps.enumerated() {
                let response = try await transport.send(
                    method, server.url(for: .echo), body: body.isEmpty ? .empty : .data(body))
                #expect(response.status == 200, "step \(index)")
                let recorded = try #require(server.recordedRequests.last)
                #expect(recorded.method == method.rawValue, "step \(index)")
                #expect(recorded.body == body, "step \(index): \(recorded.body.count) bytes")
                if body.isEmpty {
                    #expect(!recorded.headers.contains("Content-Length"), "step \(index)")
                } else {
                    #expect(recorded.headers["Content-Length"] == "\(body.count)", "step \(index)")
                }
                #expect(!recorded.headers.contains("Content-Type"), "step \(index)")
            }
            // One connection, so one pooled handle, served every step.
            #expect(server.connectionCount == 1)
        }
    }

    @Test func aBodySentWithTheHeadIsReportedAsSent() async throws {
        try await withServer { server, transport in
            let request = try Request(method: .post, url: server.url(for: .echo), body: .data(Self.kilobyte)).prepared()
            let recorder = TransferRecorder()
            transport.transfer(request).start(recorder.observer)
            try await eventually("the transfer ends") { recorder.terminal != nil }
            let events = recorder.events
            let uploads = recorder.uploadProgress
            #expect(uploads.map(\.completed) == [1_024])
            #expect(uploads.first?.expected == 1_024)
            // Reported before the answer's head.
            let uploadIndex = events.firstIndex { if case .value(.uploadProgress) = $0 { true } else { false } }
            let headIndex = events.firstIndex { if case .value(.head) = $0 { true } else { false } }
            #expect(try #require(uploadIndex) < #require(headIndex))
            #expect(recorder.completedMetrics.first?.bytesSent == 1_024)
        }
    }

    /// A POST the server reads and drops unanswered on a warm keep-alive connection: libcurl would
    /// send it again on a new connection by itself. Whether its body went with the head (small) or
    /// was read in pieces (large), and for PATCH too, the server sees it once.
    @Test(arguments: [(HTTPMethod.post, 4), (.post, 200_000), (.patch, 4)])
    func aNonIdempotentRequestIsNeverSentTwice(method: HTTPMethod, size: Int) async throws {
        try await withServer { server, transport in
            _ = try await transport.send(server.url(for: .echo))
            let fault = server.url(for: .fault(.closeBeforeHeaders))
            let error = await expectFailure(.connectionLost) {
                try await transport.send(method, fault, body: .data(Data(repeating: 0x61, count: size)))
            }
            #expect(error?.message.contains("not idempotent") == true, "\(String(describing: error))")
            #expect(server.requests(to: fault.path).count == 1)
        }
    }

    /// An idempotent PUT whose body went with the head may be sent again on a fresh connection,
    /// whole: libcurl resends its copy.
    @Test func anIdempotentRequestWithASmallBodyMayBeSentAgainWhole() async throws {
        try await withServer { server, transport in
            _ = try await transport.send(server.url(for: .echo))
            let fault = server.url(for: .fault(.closeBeforeHeaders))
            _ = try? await transport.send(.put, fault, body: .data(Self.kilobyte))
            let seen = server.requests(to: fault.path)
            #expect(seen.count >= 1)
            #expect(seen.allSatisfy { $0.body == Self.kilobyte })
            // The handle is still good for the next request.
            let response = try await transport.send(.post, server.url(for: .echo), body: .data(Self.kilobyte))
            #expect(response.status == 200)
            #expect(server.recordedRequests.last?.body == Self.kilobyte)
        }
    }

    /// An idempotent PUT whose body is an async sequence read once, on a kept-alive connection
    /// that dies before any answer: libcurl cannot send it again, and the error says the body is
    /// why (it said the method was not idempotent).
    @Test func aBodyThatCannotBeReadAgainIsWhyAPutIsNotSentAgain() async throws {
        try await withServer { server, transport in
            _ = try await transport.send(server.url(for: .echo))
            let fault = server.url(for: .fault(.closeBeforeHeaders))
            let once = AsyncStream<Data> { continuation in
                continuation.yield(Self.kilobyte)
                continuation.finish()
            }
            let error = await expectFailure(.connectionLost) {
                try await transport.send(.put, fault, body: .stream(BodyProvider(bytes: once)))
            }
            #expect(error?.message.contains("its body cannot be read again") == true, "\(String(describing: error))")
            #expect(error?.message.contains("not idempotent") == false)
        }
    }

    private static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

    /// A 417 to `Expect: 100-continue` comes before the body was read: libcurl sends the request
    /// again by itself, without the expectation, which is safe for any method. The guard against
    /// resending a non-idempotent request lets that one through: it followed an answer.
    @Test(arguments: [1_024, 200_000])
    func aPostAnswered417BeforeItsBodyIsSentAgain(size: Int) async throws {
        let server = try ScriptedRawServer { index, head in
            if head.contains("expect: 100-continue") && index == 0 {
                return .respondBeforeBody("HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\n\r\n")
            }
            return .respond(Self.ok)
        }
        defer { server.stop() }
        let body = Data(repeating: 0x62, count: size)
        let transport = CurlTransport()
        let response = try await transport.send(
            .post, server.url("/p"), headers: ["Expect": "100-continue"], body: .data(body))
        #expect(response.status == 200)
        #expect(server.requests.last?.body == body)
    }

    /// An answer that comes before the body went out (here a 413 to `Expect: 100-continue`) does
    /// not make the body count as sent: progress and `bytesSent` say what libcurl really sent.
    @Test func aBodyThatWasNotSentIsNotReportedAsSent() async throws {
        let server = try ScriptedRawServer { _, head in
            if head.contains("expect: 100-continue") {
                return .respondBeforeBody(
                    "HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            }
            return .respond(Self.ok)
        }
        defer { server.stop() }
        let request = try Request(
            method: .post, url: server.url("/p"), headers: ["Expect": "100-continue"],
            body: .data(Data(repeating: 0x63, count: 1_024))
        ).prepared()
        // Kept for the whole test: a transport that goes away shuts down its transfers.
        let transport = CurlTransport()
        let recorder = TransferRecorder()
        transport.transfer(request).start(recorder.observer)
        try await eventually("the transfer ends") { recorder.terminal != nil }
        let uploads = recorder.uploadProgress.map(\.completed)
        #expect(server.requests.allSatisfy { $0.body.isEmpty })
        #expect(uploads.allSatisfy { $0 == 0 }, "\(uploads)")
        #expect(recorder.completedMetrics.first?.bytesSent == 0, "\(String(describing: recorder.terminal))")
    }

    /// The server reads a POST on a warm connection, stops listening and drops the connection
    /// unanswered. libcurl's own retry cannot reconnect: the POST reached the server, so the error
    /// must not say it could not connect (an offline retry would take that to mean it never left,
    /// and send it again).
    @Test(arguments: [4, 1_024, 200_000])
    func aPostThatReachedTheServerIsNotReportedAsCannotConnect(size: Int) async throws {
        let server = try ScriptedRawServer { index, _ in index == 0 ? .respond(Self.ok) : .stopListeningAndDrop }
        defer { server.stop() }
        let transport = CurlTransport()
        _ = try await transport.send(server.url("/warm"))
        await expectFailure(.connectionLost) {
            try await transport.send(.post, server.url("/post"), body: .data(Data(repeating: 0x61, count: size)))
        }
        #expect(server.requests.count == 2, "the server saw the POST")
    }
}
