import Foundation
import Sluice
import Testing

/// The WHATWG rules for `text/event-stream`, in chunks of every size.
@Suite("Event stream parser")
struct EventStreamParserTests {
    private func parse(_ text: String, chunkSize: Int? = nil) throws -> [ServerSentEvent] {
        try parse(Array(text.utf8), chunkSize: chunkSize)
    }

    private func parse(_ bytes: [UInt8], chunkSize: Int? = nil) throws -> [ServerSentEvent] {
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        let size = max(1, chunkSize ?? bytes.count)
        var start = 0
        while start < bytes.count {
            events += try parser.parse(bytes[start..<min(start + size, bytes.count)])
            start += size
        }
        return events
    }

    @Test func fieldsDataLinesAndTheDefaultType() throws {
        let events = try parse("event: add\ndata: one\ndata:two\nid: 7\n\ndata: three\n\n")
        #expect(
            events == [
                ServerSentEvent(event: "add", data: "one\ntwo", id: "7"),
                ServerSentEvent(data: "three", id: "7"),  // the ID outlives its event; the type does not
            ])
    }

    @Test func commentsUnknownFieldsAndEventsWithoutDataAreIgnored() throws {
        let events = try parse(": keep-alive\nfoo: bar\n\nevent: ping\n\ndata\n\ndata:\n\n")
        #expect(events == [ServerSentEvent(data: ""), ServerSentEvent(data: "")])
    }

    @Test(arguments: ["\n", "\r", "\r\n"])
    func everyLineEndingInEveryChunking(_ end: String) throws {
        let text = ["data: a", "data: b", "", "event: x", "data: c", "", ""].joined(separator: end)
        for size in 1...text.utf8.count {
            let events = try parse(text, chunkSize: size)
            #expect(
                events == [ServerSentEvent(data: "a\nb"), ServerSentEvent(event: "x", data: "c")], "chunks of \(size)")
        }
    }

    @Test func aByteOrderMarkIsSkippedAtTheStartOnly() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(try parse(bom + Array("data: hi\n\n".utf8), chunkSize: 1) == [ServerSentEvent(data: "hi")])
        let twice = try parse(bom + Array("data: a\n\n".utf8) + bom + Array("data: b\n\n".utf8))
        #expect(twice == [ServerSentEvent(data: "a")], "a second BOM starts a field named \u{FEFF}data")
    }

    @Test func retryTakesDigitsOnlyAndIdRefusesNUL() throws {
        var parser = EventStreamParser()
        let events = try parser.parse(Array("retry: 2500\nid: a\u{0}b\ndata: x\n\nretry: 1e3\ndata: y\n\n".utf8))
        #expect(events.map(\.retry) == [.milliseconds(2500), nil])
        #expect(events.map(\.id) == [nil, nil])
        #expect(parser.retry == .milliseconds(2500))
    }

    @Test func anUnfinishedEventIsDiscardedAndInvalidUTF8IsReplaced() throws {
        #expect(try parse("data: whole\n\ndata: cut off") == [ServerSentEvent(data: "whole")])
        #expect(try parse([UInt8]("data: ".utf8) + [0xFF] + [0x0A, 0x0A]) == [ServerSentEvent(data: "\u{FFFD}")])
    }

    @Test func aLineThatNeverEndsIsRefused() throws {
        var parser = EventStreamParser(maximumLineLength: 100)
        #expect(throws: SluiceError.self) { try parser.parse(Array(repeating: UInt8(ascii: "a"), count: 101)) }
    }
}
