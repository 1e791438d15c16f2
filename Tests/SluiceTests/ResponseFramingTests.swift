import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Synchronization
import Testing

/// Response heads whose framing is ambiguous, or that libcurl reads differently from us, sent byte
/// for byte by a raw server over loopback: each must fail with a typed error that names what was
/// wrong, never be read as a response with whatever body libcurl made of it.
@Suite("Response framing")
struct ResponseFramingTests {
    /// A server that answers every request with a 200 with these field lines and `body`.
    private static func serving(_ fields: [String], body: String = "", status: String = "HTTP/1.1 200 OK") throws
        -> ScriptedRawServer
    {
        let text = ([status] + fields).joined(separator: "\r\n") + "\r\n\r\n" + body
        return try ScriptedRawServer { _, _ in .respond(text) }
    }

    /// Expects a request to the server to fail as `.protocolError` with a message that names `name`.
    private static func expectProtocolError(
        _ fields: [String], body: String, naming name: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let server = try serving(fields, body: body)
        defer { server.stop() }
        let transport = CurlTransport()
        let error = await expectFailure(.protocolError, sourceLocation: sourceLocation) {
            try await transport.send(server.url())
        }
        #expect(error?.message.contains(name) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    // MARK: Content-Length

    /// libcurl frames the body by the last Content-Length while the headers showed the first: two
    /// that differ, on two lines or in one list, leave the body's end unknown (RFC 9112 §6.3).
    @Test(arguments: [
        ["Content-Length: 10", "Content-Length: 20"],
        ["Content-Length: 20", "X-Between: 1", "content-length: 10"],
        ["Content-Length: 10, 20"],
        ["Content-Length: 20, 20", "Content-Length: 10"],
    ])
    func contentLengthsThatDifferFail(fields: [String]) async throws {
        try await Self.expectProtocolError(fields, body: String(repeating: "b", count: 20), naming: "Content-Length")
    }

    /// The same length repeated, on two lines or in one list, is one length.
    @Test(arguments: [
        ["Content-Length: 5", "Content-Length: 5"],
        ["Content-Length: 5, 5"],
        ["content-length: 5 ,5", "Content-Length:5"],
    ])
    func theSameContentLengthRepeatedIsAccepted(fields: [String]) async throws {
        let server = try Self.serving(fields, body: "hello")
        defer { server.stop() }
        let transport = CurlTransport()
        // Twice on one connection: the first body ended where the length said.
        for _ in 0..<2 {
            let response = try await transport.send(server.url())
            #expect(response.status == 200)
            #expect(response.body == Data("hello".utf8))
        }
    }

    /// A length that does not fit in 63 bits made libcurl read until the connection closed; one
    /// that is not digits was read by its leading digits, or refused with a generic message.
    @Test(arguments: [
        "99999999999999999999999", "9223372036854775808", "abc", "-1", "+2", "2x", "0x2", "2 2", "2,", "",
    ])
    func aContentLengthThatIsNotALengthFails(value: String) async throws {
        try await Self.expectProtocolError(["Content-Length: \(value)"], body: "ok", naming: "Content-Length")
    }

    /// Content-Length with Transfer-Encoding is how responses are smuggled: whichever libcurl
    /// believes, something else on the path may believe the other.
    @Test(arguments: [
        ["Content-Length: 5", "Transfer-Encoding: chunked"],
        ["Transfer-Encoding: chunked", "Content-Length: 5"],
        ["transfer-encoding: chunked", "X-Between: 1", "content-length: 100"],
    ])
    func aContentLengthWithATransferEncodingFails(fields: [String]) async throws {
        try await Self.expectProtocolError(fields, body: "5\r\nhello\r\n0\r\n\r\n", naming: "Transfer-Encoding")
    }

    /// Nothing of a response whose framing is invalid reaches a subscriber: no head, no body
    /// chunk, no completion, only the failure.
    @Test func anInvalidHeadDeliversNothingButTheFailure() async throws {
        let server = try Self.serving(
            ["Content-Length: 5", "Transfer-Encoding: chunked"], body: "5\r\nhello\r\n0\r\n\r\n")
        defer { server.stop() }
        let transport = CurlTransport()
        let recorder = TransferRecorder()
        transport.transfer(try Request(url: server.url()).prepared()).start(recorder.observer)
        try await eventually("the transfer ends") { recorder.terminal != nil }
        #expect(recorder.heads.isEmpty)
        #expect(recorder.bodyBytes == 0)
        #expect(recorder.completedMetrics.isEmpty)
        guard case .failed(let error) = recorder.terminal else {
            Issue.record("the transfer fails: \(String(describing: recorder.terminal))")
            return
        }
        #expect(error.code == .protocolError)
    }

    // MARK: Obsolete line folding

    /// A line that starts with a space or a tab continues the previous field: libcurl hands it over
    /// as a line of its own, which used to be dropped ("one"). RFC 9112 §5.2: replaced by a space.
    @Test func aFoldedFieldIsJoinedWithOneSpace() async throws {
        let server = try Self.serving(
            ["X-A: one", " two", "\t \tthree  ", "X-B: b", "Content-Length: 2"], body: "ok")
        defer { server.stop() }
        let transport = CurlTransport()
        let response = try await transport.send(server.url())
        #expect(response.headers["X-A"] == "one two three")
        #expect(response.headers["X-B"] == "b")
        #expect(response.headers.count == 3)
        #expect(response.body == Data("ok".utf8))
    }

    /// A continuation before any field has nothing to continue: the head is invalid (RFC 9112
    /// §2.2), and the error says why (libcurl 7's own was "A libcurl function was given a bad
    /// argument", as a transport failure; later versions hand the line over).
    @Test func aContinuationBeforeAnyFieldFails() async throws {
        try await Self.expectProtocolError(
            ["  X-Stray: x", "X-B: b", "Content-Length: 2"], body: "ok", naming: "whitespace before any header field")
    }

    /// A folded Content-Length is read as the joined line: the same length again is accepted,
    /// anything else is not a length.
    @Test func aFoldedContentLengthIsReadWhole() async throws {
        let same = try Self.serving(["Content-Length: 2", " , 2"], body: "ok")
        defer { same.stop() }
        let transport = CurlTransport()
        let response = try await transport.send(same.url())
        #expect(response.body == Data("ok".utf8))
        #expect(response.headers["Content-Length"] == "2 , 2")
        try await Self.expectProtocolError(["Content-Length: 2", " 3"], body: "ok", naming: "Content-Length")
    }

    // MARK: Header size

    /// libcurl refuses a header line longer than its own limit (CURL_MAX_HTTP_HEADER, 100 KiB),
    /// below `maximumHeaderSize`'s default, and says "Out of memory": that is a header too large.
    @Test(arguments: [150 * 1024, 200 * 1024, 1 << 20])
    func aHeaderLineLongerThanLibcurlsLimitIsTooLarge(length: Int) async throws {
        for (fields, status) in [
            (["X-Huge: " + String(repeating: "a", count: length), "Content-Length: 2"], "HTTP/1.1 200 OK"),
            (["Content-Length: 2"], "HTTP/1.1 200 " + String(repeating: "O", count: length)),
        ] {
            let server = try Self.serving(fields, body: "ok", status: status)
            defer { server.stop() }
            let transport = CurlTransport()
            let error = await expectFailure(.headersTooLarge) { try await transport.send(server.url()) }
            #expect(error?.message.contains("\(100 * 1024) bytes per line") == true, "\(String(describing: error))")
        }
    }

    /// A line just under libcurl's limit is accepted, as far as `maximumHeaderSize` allows.
    @Test func aLongHeaderLineUnderTheLimitsIsAccepted() async throws {
        let value = String(repeating: "a", count: 90 * 1024)
        let server = try Self.serving(["X-Long: " + value, "Content-Length: 2"], body: "ok")
        defer { server.stop() }
        let transport = CurlTransport()
        let response = try await transport.send(server.url())
        #expect(response.headers["X-Long"] == value)
        var small = RequestOptions()
        small.maximumHeaderSize = 64 * 1024
        let error = await expectFailure(.headersTooLarge) { try await transport.send(server.url(), options: small) }
        #expect(error?.message.contains("limit of \(64 * 1024) bytes") == true, "\(String(describing: error))")
    }
}
