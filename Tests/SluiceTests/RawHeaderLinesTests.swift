import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

@Suite("Response headers kept as received lines")
struct RawHeaderLinesTests {
    /// A response's field lines, with what makes them awkward: repeated names, names in several
    /// cases, spaces and tabs around values, an empty value, a line without a colon, a colon in a
    /// value, LF without CR, non-ASCII bytes.
    private static let block =
        "Server: nginx\r\nSet-Cookie: a=1\r\ncontent-type:\ttext/plain; charset=utf-8 \r\n"
        + "SET-COOKIE: b=2\r\nX-Empty:\r\nnot a field\r\nX-Time: 12:30:45\nX-Name: caf\u{e9}\r\n"
        + "X-Spaces:   padded   \r\n"

    private static let expectedFields: [HTTPHeaders.Field] = [
        .init(name: "Server", value: "nginx"), .init(name: "Set-Cookie", value: "a=1"),
        .init(name: "content-type", value: "text/plain; charset=utf-8"), .init(name: "SET-COOKIE", value: "b=2"),
        .init(name: "X-Empty", value: ""), .init(name: "X-Time", value: "12:30:45"),
        .init(name: "X-Name", value: "caf\u{e9}"), .init(name: "X-Spaces", value: "padded"),
    ]

    private func lines() -> HTTPHeaders {
        HTTPHeaders(lines: RawHeaderLines(bytes: Array(Self.block.utf8)))
    }

    @Test func readingTheLinesGivesWhatTheFieldsWouldGive() {
        let raw = lines()
        let parsed = HTTPHeaders(Self.expectedFields)
        #expect(Array(raw) == Self.expectedFields)
        #expect(raw.count == parsed.count)
        #expect(!raw.isEmpty)
        for name in ["server", "SET-COOKIE", "Content-Type", "x-empty", "X-Time", "x-name", "X-Spaces", "Missing", ""] {
            #expect(raw[name] == parsed[name], "\(name)")
            #expect(raw.values(for: name) == parsed.values(for: name), "\(name)")
            #expect(raw.contains(name) == parsed.contains(name), "\(name)")
        }
        #expect(raw.values(for: "set-cookie") == ["a=1", "b=2"])
        #expect(raw == parsed && parsed == raw)
        #expect(raw.hashValue == parsed.hashValue)
        #expect(raw.description == parsed.description)
    }

    @Test func changingTheLinesChangesOnlyThatCopy() {
        let original = lines()
        var changed = original
        changed["Server"] = "other"
        changed.add(name: "X-New", value: "1")
        changed.remove(name: "set-cookie")
        #expect(changed["server"] == "other")
        #expect(changed.values(for: "Set-Cookie").isEmpty)
        #expect(changed.count == Self.expectedFields.count - 2 + 1)
        #expect(Array(changed).last == HTTPHeaders.Field(name: "X-New", value: "1"))
        // The copy that was not changed still reads the lines as received.
        #expect(original["Server"] == "nginx")
        #expect(Array(original) == Self.expectedFields)
        #expect(original != changed)
    }

    @Test func aNameThatIsNotUTF8IsFoundAsIterationShowsIt() {
        // The name decodes to U+FFFD, as the field lists it; looking it up by that name finds it.
        let bytes = Array("X-A: 1\r\n".utf8) + [0xFF] + Array(": v\r\n".utf8)
        let raw = HTTPHeaders(lines: RawHeaderLines(bytes: bytes))
        let parsed = HTTPHeaders(Array(raw))
        let name = Array(raw)[1].name
        #expect(name == "\u{FFFD}")
        #expect(parsed[name] == "v")
        #expect(raw[name] == parsed[name])
        #expect(raw.values(for: name) == parsed.values(for: name))
        #expect(raw.contains(name) == parsed.contains(name))
    }

    @Test func noFieldLinesMakeAnEmptyList() {
        for block in ["", "not a field\r\n", "\r\n", ": no name is still a field\r\n"] {
            let headers = HTTPHeaders(lines: RawHeaderLines(bytes: Array(block.utf8)))
            #expect(headers.isEmpty == Array(headers).isEmpty, "\(block.debugDescription)")
            #expect(headers.count == Array(headers).count, "\(block.debugDescription)")
        }
        #expect(HTTPHeaders(lines: RawHeaderLines(bytes: [])) == HTTPHeaders())
    }

    @Test func theTransportsParserKeepsFieldLinesAndReadsTheHead() {
        var parser = HeaderBlockParser()
        func feed(_ line: String) -> HeaderBlockParser.Line {
            Array(line.utf8).withUnsafeBufferPointer { parser.read($0) }
        }
        // A 100 Continue block, then the real one: only the last block's fields remain.
        #expect(feed("HTTP/1.1 100 Continue\r\n") == .status)
        #expect(feed("X-Interim: 1\r\n") == .field)
        #expect(feed("\r\n") == .end)
        #expect(feed("HTTP/1.1 200 OK\r\n") == .status)
        #expect(feed("Content-Length: 42\r\n") == .field)
        #expect(feed("content-length: 42\r\n") == .field)
        #expect(feed("X-Last: no line break") == .field)
        #expect(feed("\r\n") == .end)
        #expect(parser.status == 200)
        #expect(parser.contentLength == 42)
        let headers = parser.takeHeaders()
        #expect(headers.values(for: "Content-Length") == ["42", "42"])
        #expect(headers["X-Interim"] == nil)
        #expect(headers["x-last"] == "no line break")
        #expect(headers.count == 3)
    }

    /// The lines that decide framing are judged as they arrive; the first that makes it ambiguous
    /// is `.invalid`, and `problem` says why.
    @Test(arguments: [
        (["Content-Length: 1", "Content-Length: 2"], "differ: 1, then \"2\""),
        (["Content-Length: 1, 1, 2"], "\"1, 1, 2\" is not a length"),
        (["Content-Length: 9223372036854775808"], "is not a length"),
        (["Content-Length: 1", "Transfer-Encoding: chunked"], "both a Content-Length and a Transfer-Encoding"),
        (["Transfer-Encoding: gzip, chunked", "X-A: 1", "Content-Length: 1"], "both a Content-Length"),
        (["Content-Length: 1", " 2"], "\"1 2\" is not a length"),
        ([" X-A: 1"], "whitespace before any header field"),
    ])
    func theParserRefusesAmbiguousFraming(lines: [String], problem: String) {
        var parser = HeaderBlockParser()
        func feed(_ line: String) -> HeaderBlockParser.Line {
            Array(line.utf8).withUnsafeBufferPointer { parser.read($0) }
        }
        #expect(feed("HTTP/1.1 200 OK\r\n") == .status)
        for line in lines.dropLast() { #expect(feed(line + "\r\n") == .field, "\(line)") }
        #expect(feed(lines.last! + "\r\n") == .invalid)
        #expect(parser.problem?.contains(problem) == true, "\(String(describing: parser.problem))")
        // The next block, after a blank line, starts afresh.
        #expect(feed("\r\n") == .end)
        #expect(feed("HTTP/1.1 200 OK\r\n") == .status)
        #expect(parser.problem == nil)
        #expect(feed("Content-Length: 3\r\n") == .field)
        #expect(feed("\r\n") == .end)
        #expect(parser.contentLength == 3)
    }

    /// A block without a Content-Length whose Transfer-Encoding names no chunked coding is read to
    /// the connection's close, as libcurl reads it.
    @Test(arguments: [
        ([String](), true),
        (["Content-Length: 5"], false),
        (["Transfer-Encoding: chunked"], false),
        (["Transfer-Encoding: gzip, CHUNKED"], false),
        (["Transfer-Encoding: chunked;x=1"], false),
        (["Transfer-Encoding: identity"], true),
        (["Transfer-Encoding: x-chunked, chunkedx"], true),
        (["Transfer-Encoding: gzip,"], true),
        (["Transfer-Encoding: gzip", "Transfer-Encoding: chunked"], false),
    ])
    func theParserTellsABodyReadToTheClose(lines: [String], readToClose: Bool) {
        var parser = HeaderBlockParser()
        func feed(_ line: String) -> HeaderBlockParser.Line {
            Array(line.utf8).withUnsafeBufferPointer { parser.read($0) }
        }
        #expect(feed("HTTP/1.1 200 OK\r\n") == .status)
        for line in lines { #expect(feed(line + "\r\n") == .field, "\(line)") }
        #expect(feed("\r\n") == .end)
        #expect(parser.isReadToClose == readToClose, "\(lines)")
        // The next block, after a blank line, starts afresh.
        #expect(feed("\r\n") == .end)
        #expect(feed("HTTP/1.1 200 OK\r\n") == .status)
        #expect(parser.isReadToClose)
    }

    @Test func theParserJoinsFoldedLinesAndReadsTheLargestLength() {
        var parser = HeaderBlockParser()
        func feed(_ line: String) -> HeaderBlockParser.Line {
            Array(line.utf8).withUnsafeBufferPointer { parser.read($0) }
        }
        #expect(feed("HTTP/1.1 200 OK\r\n") == .status)
        #expect(feed("X-A: one  \r\n") == .field)
        #expect(feed(" \t two\r\n") == .field)
        #expect(feed("\tthree\r\n") == .field)
        #expect(feed("Content-Length: 9223372036854775807\r\n") == .field)
        #expect(feed("  , 9223372036854775807\r\n") == .field)
        #expect(feed("X-B: b\n") == .field)
        #expect(feed("\r\n") == .end)
        #expect(parser.contentLength == Int64.max)
        let headers = parser.takeHeaders()
        #expect(Array(headers).map(\.name) == ["X-A", "Content-Length", "X-B"])
        #expect(headers["X-A"] == "one two three")
        #expect(headers["Content-Length"] == "9223372036854775807 , 9223372036854775807")
        // A trailer's lines do not decide framing any more.
        #expect(feed("Content-Length: 5\r\n") == .field)
        #expect(feed("Transfer-Encoding: chunked\r\n") == .field)
        #expect(feed("\r\n") == .end)
        #expect(parser.contentLength == Int64.max)
    }

    /// A line that starts with `HTTP/` is a status line only where a block starts, and not in a
    /// trailer; inside a head or a trailer it is a field line without a colon, as libcurl reads
    /// it, and changes neither the status nor the framing (it reset both once). Once libcurl sent
    /// the request again (after a 417 or a 401), the next block is a new response's head.
    @Test func aStatusLikeLineInsideAHeadOrATrailerIsAField() {
        var parser = HeaderBlockParser()
        func feed(_ line: String) -> HeaderBlockParser.Line {
            Array(line.utf8).withUnsafeBufferPointer { parser.read($0) }
        }
        #expect(feed("HTTP/1.1 200 OK\r\n") == .status)
        #expect(feed("Content-Length: 5\r\n") == .field)
        #expect(feed("HTTP/1.1 500 Oops\r\n") == .field)
        #expect(feed("\r\n") == .end)
        #expect(parser.status == 200)
        #expect(parser.contentLength == 5)
        _ = parser.takeHeaders()
        // A trailer.
        #expect(feed("HTTP/1.1 204 No Content\r\n") == .field)
        #expect(feed("\r\n") == .end)
        #expect(parser.status == 200)
        #expect(parser.contentLength == 5)
        // The request went out again: a new response.
        parser.requestSentAgain()
        #expect(feed("HTTP/1.1 204 No Content\r\n") == .status)
        #expect(feed("X-Next: 1\r\n") == .field)
        #expect(feed("HTTP/1.1 500 Oops\r\n") == .field)
        #expect(feed("\r\n") == .end)
        #expect(parser.status == 204)
    }

    /// Found by the header block fuzz target: a folded trailer line after a head with a
    /// Content-Length read the head's line again, at an offset past the trailer's lines, and crashed.
    @Test func aFoldedTrailerLineAfterAContentLengthIsAField() {
        var parser = HeaderBlockParser()
        func feed(_ line: String) -> HeaderBlockParser.Line {
            Array(line.utf8).withUnsafeBufferPointer { parser.read($0) }
        }
        #expect(feed("HTTP/1.1 200 OK\r\n") == .status)
        #expect(feed("Content-Type: text/plain\r\n") == .field)
        #expect(feed("Content-Length: 5\r\n") == .field)
        #expect(feed("\r\n") == .end)
        _ = parser.takeHeaders()
        #expect(feed("X: 1\r\n") == .field)
        #expect(feed(" folded\r\n") == .field)
        #expect(feed("\r\n") == .end)
        #expect(parser.contentLength == 5)
        #expect(parser.takeHeaders()["X"] == "1 folded")
    }
}
