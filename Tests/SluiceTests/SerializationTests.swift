import Dispatch
import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Synchronization
import Testing

/// A user with a nested address, to decode a wrong type deep inside.
private struct Directory: Decodable, Sendable {
    struct User: Decodable, Sendable {
        struct Address: Decodable, Sendable {
            let zip: Int
        }
        let name: String
        let address: Address
    }
    let users: [User]
}

/// A small decodable item, for the large document and strategies.
private struct Item: Decodable, Sendable, Equatable {
    let id: Int
    let fullName: String
}

/// The threads (pthread ids) something ran on.
///
/// Ids rather than `Thread.current.name`: thread names are only labels (and on Linux one longer than
/// 15 bytes is silently not applied), while ids identify the thread.
private final class ThreadLog: Sendable {
    let threads = Mutex<[UInt]>([])

    func record() {
        let id = UInt(pthread_self())
        threads.withLock { $0.append(id) }
    }

    var all: [UInt] { threads.withLock { $0 } }
}

/// A value that records the thread it is decoded on.
private struct ThreadProbe: Decodable, Sendable {
    let decodedOn: UInt

    init(from decoder: any Decoder) throws {
        decodedOn = UInt(pthread_self())
        _ = try decoder.singleValueContainer().decode([Int].self)
    }
}

@Suite("Serialization")
struct SerializationTests {
    /// Runs `body` with a server and a client on it with its own transport (see `withServer`).
    private static func withClient<T>(_ body: (MockServer, Client) async throws -> T) async throws -> T {
        try await withServer { server, transport in
            try await body(server, try Client(baseURL: server.baseURL.absoluteString, transport: transport))
        }
    }

    /// The error `operation` fails with.
    private static func failure<T>(_ operation: () async throws(SluiceError) -> T) async -> SluiceError? {
        do {
            _ = try await operation()
            return nil
        } catch {
            return error
        }
    }

    @Test func decodesJSONAndReportsTheCodingPathOfAWrongTypeDeepInside() async throws {
        try await Self.withClient { server, client in
            server.script("/ok", .json(#"{"users":[{"name":"Ada","address":{"zip":12345}}]}"#))
            let directory = try await client.get("ok").decode(Directory.self).value
            #expect(directory.users.first?.address.zip == 12345)

            server.script(
                "/bad",
                .json(
                    #"{"users":[{"name":"Ada","address":{"zip":1}},{"name":"Bob","address":{"zip":2}},"#
                        + #"{"name":"Cy","address":{"zip":3}},{"name":"Di","address":{"zip":"oops"}}]}"#))
            let error = try #require(
                await Self.failure { () async throws(SluiceError) in
                    try await client.get("bad").decode(Directory.self).value
                })
            #expect(error.code == .serializationFailed)
            #expect(error.keyPath == "users[3].address.zip")
            #expect(error.underlyingError is DecodingError)
            #expect(error.response?.status == 200)
            #expect(error.message.contains("application/json"))
            #expect(error.message.contains(#"first bytes: {"users":[{"name":"Ada""#))
            #expect(error.message.hasSuffix("…"))
            #expect(error.description.contains("(at users[3].address.zip)"))
        }
    }

    @Test func aMissingKeyNamesItInTheKeyPath() async throws {
        try await Self.withClient { server, client in
            server.script("/x", .json(#"{"users":[{"name":"Ada","address":{}}]}"#))
            let error = await Self.failure { () async throws(SluiceError) in
                try await client.get("x").decode(Directory.self).value
            }
            #expect(error?.keyPath == "users[0].address.zip")
        }
    }

    @Test func malformedJSONFailsWithTheFirstBytes() async throws {
        try await Self.withClient { server, client in
            server.script("/x", .json("{\"users\": [1, 2,\n"))
            let error = try #require(
                await Self.failure { () async throws(SluiceError) in
                    try await client.get("x").decode(Directory.self).value
                })
            #expect(error.code == .serializationFailed)
            #expect(error.isSerializationError)
            #expect(error.underlyingError is DecodingError)
            #expect(error.message.contains(#"first bytes: {"users": [1, 2,\n"#))

            let parseError = await Self.failure { () async throws(SluiceError) in try await client.get("x").json().value
            }
            #expect(parseError?.code == .serializationFailed)
            #expect(parseError?.message.contains("malformed JSON") == true)
        }
    }

    @Test func anHTMLPageWhereJSONWasExpectedExplainsItself() async throws {
        try await Self.withClient { server, client in
            let page = "<!doctype html><html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
            server.script(
                "/x",
                ScriptedResponse(
                    status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data(page.utf8)))
            let error = try #require(
                await Self.failure { () async throws(SluiceError) in
                    try await client.get("x").decode(Directory.self).value
                })
            #expect(error.code == .serializationFailed)
            #expect(
                error.message.hasPrefix(
                    "unacceptable content-type: text/html (expected application/json, text/json, text/javascript, "
                        + "*/*+json); first bytes: <!doctype html>"))
            #expect(error.message.hasSuffix("…"))
            #expect(error.response?.body == Data(page.utf8))
            #expect(DecodableResponseSerializer<Item>.acceptableContentTypes.contains("text/javascript"))
        }
    }

    @Test func vendorJSONTypesAreAccepted() async throws {
        try await Self.withClient { (server, client) async throws in
            let body = Data(#"{"id":1,"fullName":"Ada"}"#.utf8)
            for type in ["application/vnd.api+json", "text/json", "text/javascript; charset=utf-8", "APPLICATION/JSON"]
            {
                server.script("/x", ScriptedResponse(headers: ["Content-Type": type], body: body))
                #expect(try await client.get("x").decode(Item.self).value == Item(id: 1, fullName: "Ada"))
            }
            server.script("/none", ScriptedResponse(body: body))
            #expect(try await client.get("none").decode(Item.self).value.id == 1)
        }
    }

    @Test func theDecodersStrategiesApply() async throws {
        try await Self.withClient { server, client in
            struct Event: Decodable, Sendable { let startsAt: Date }
            server.script("/x", .json(#"{"starts_at":"2024-05-01T12:00:00Z"}"#))
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            decoder.dateDecodingStrategy = .iso8601
            let event = try await client.get("x").decode(Event.self, decoder: decoder).value
            #expect(event.startsAt == Date(timeIntervalSince1970: 1_714_564_800))
        }
    }

    @Test func stringsHonourTheCharset() async throws {
        try await Self.withClient { (server, client) async throws in
            server.script("/utf8", .text("Zoë — naïve ☃"))
            #expect(try await client.get("utf8").string().value == "Zoë — naïve ☃")

            let latin1 = Data([0x5A, 0x6F, 0xEB, 0x20, 0x63, 0x61, 0x66, 0xE9])  // "Zoë café" in ISO-8859-1
            server.script(
                "/latin1", ScriptedResponse(headers: ["Content-Type": "text/plain; charset=iso-8859-1"], body: latin1))
            #expect(try await client.get("latin1").string().value == "Zoë café")

            server.script(
                "/quoted",
                ScriptedResponse(headers: ["Content-Type": #"text/plain; charset="UTF-8""#], body: Data("é".utf8)))
            #expect(try await client.get("quoted").string().value == "é")

            // No charset: UTF-8 when it is valid, else ISO-8859-1.
            server.script("/bare", ScriptedResponse(headers: ["Content-Type": "text/plain"], body: latin1))
            #expect(try await client.get("bare").string().value == "Zoë café")
            server.script("/bare-utf8", ScriptedResponse(body: Data("Zoë".utf8)))
            #expect(try await client.get("bare-utf8").string().value == "Zoë")

            // An explicit encoding wins over the header.
            server.script(
                "/lying", ScriptedResponse(headers: ["Content-Type": "text/plain; charset=utf-8"], body: latin1))
            #expect(try await client.get("lying").string(encoding: .isoLatin1).value == "Zoë café")
            let error = await Self.failure { () async throws(SluiceError) in
                try await client.get("lying").string().value
            }
            #expect(error?.code == .serializationFailed)
            #expect(error?.message.contains("not valid utf-8") == true)
        }
    }

    @Test func emptyBodiesDecodeToEmptyOrNil() async throws {
        try await Self.withClient { server, client in
            server.script("/no-content", ScriptedResponse(status: 204))
            server.script("/reset", ScriptedResponse(status: 205))
            server.script("/empty", ScriptedResponse(status: 200, headers: ["Content-Type": "application/json"]))
            server.script("/head", .json(#"{"id":1,"fullName":"Ada"}"#))
            let producers = [
                client.get("no-content"), client.get("reset"), client.get("empty"), client.head("head"),
            ]
            for producer in producers {
                #expect(try await producer.decode(Empty.self).value == Empty())
                #expect(try await producer.decode(Item?.self).value == nil)
                #expect(try await producer.serialized().value == .empty)
                let error = try #require(
                    await Self.failure { () async throws(SluiceError) in
                        try await producer.decode(Item.self).value
                    })
                #expect(error.code == .serializationFailed)
                #expect(error.message.contains("cannot decode Item from an empty body"))
                #expect(error.message.contains("the body is empty"))
            }
            #expect(try await client.get("no-content").json().value == .null)
            #expect(try await client.get("empty").string().value == "")
            let emptyJSON = await Self.failure { () async throws(SluiceError) in
                try await client.get("empty").json().value
            }
            #expect(emptyJSON?.code == .serializationFailed)

            // A body present decodes through the Optional overload too.
            #expect(try await client.get("head").decode(Item?.self).value == Item(id: 1, fullName: "Ada"))
        }
    }

    @Test func aLargeDocumentDecodes() async throws {
        try await Self.withClient { server, client in
            var json = "["
            var count = 0
            while json.utf8.count < 5 << 20 {
                if count > 0 { json += "," }
                json += #"{"id":\#(count),"fullName":"Person number \#(count) with a longish name"}"#
                count += 1
            }
            json += "]"
            server.script("/big", .json(json))
            let items = try await client.get("big").decode([Item].self).value
            #expect(items.count == count)
            #expect(items.last == Item(id: count - 1, fullName: "Person number \(count - 1) with a longish name"))
            let value = try await client.get("big").json().value
            #expect(value.arrayValue?.count == count)
            #expect(value[count - 1]?["id"]?.intValue == count - 1)
        }
    }

    @Test func nullValuedKeysAreRemovedRecursivelyWhenAsked() async throws {
        try await Self.withClient { server, client in
            server.script("/x", .json(#"{"a":null,"b":{"c":null,"d":1},"e":[null,{"f":null,"g":true}],"h":"s"}"#))
            let kept = try await client.get("x").json().value
            #expect(kept["a"] == .null)
            #expect(kept["e"]?[0]?.isNull == true)
            let removed = try await client.get("x").json(removingNullValues: true).value
            #expect(removed == ["b": ["d": 1], "e": [nil, ["g": true]], "h": "s"])
            #expect(removed["b"]?["d"]?.doubleValue == 1)
            #expect(removed["e"]?[1]?["g"]?.boolValue == true)
            #expect(removed["h"]?.stringValue == "s")
        }
    }

    @Test func jsonValueTellsBooleansFromNumbersAndIsDecodable() async throws {
        try await Self.withClient { server, client in
            let text = #"{"t":true,"f":false,"one":1,"zero":0,"pi":3.5,"s":"x","n":null,"a":[]}"#
            server.script("/x", .json(text))
            let expected: [String: JSONValue] = [
                "t": true, "f": false, "one": 1, "zero": 0, "pi": 3.5, "s": "x", "n": nil, "a": [],
            ]
            let parsed = try await client.get("x").json().value
            #expect(parsed.objectValue == expected)
            // The same tree through Decodable, e.g. as a member of a user's own type.
            struct Wrapper: Decodable, Sendable { let payload: JSONValue }
            server.script("/wrapped", .json(#"{"payload":\#(text)}"#))
            #expect(try await client.get("wrapped").decode(Wrapper.self).value.payload == parsed)
        }
    }

    @Test func xmlParsesIntoATree() async throws {
        try await Self.withClient { server, client in
            let xml = """
                <?xml version="1.0" encoding="UTF-8"?>
                <feed lang="en">
                  <title>News</title>
                  <entry id="1"><title>First</title></entry>
                  <entry id="2"><title><![CDATA[Second & last]]></title></entry>
                </feed>
                """
            server.script(
                "/feed", ScriptedResponse(headers: ["Content-Type": "application/atom+xml"], body: Data(xml.utf8)))
            let feed = try await client.get("feed").xml().value
            #expect(feed.name == "feed")
            #expect(feed.attributes["lang"] == "en")
            #expect(feed["title"]?.text == "News")
            #expect(feed.children(named: "entry").map { $0.attributes["id"] } == ["1", "2"])
            #expect(feed.children(named: "entry").last?["title"]?.text == "Second & last")

            server.script(
                "/broken", ScriptedResponse(headers: ["Content-Type": "text/xml"], body: Data("<a><b></a>".utf8)))
            let broken = await Self.failure { () async throws(SluiceError) in try await client.get("broken").xml().value
            }
            #expect(broken?.code == .serializationFailed)
            #expect(broken?.message.contains("malformed XML") == true)

            server.script("/json", .json("{}"))
            let wrongType = await Self.failure { () async throws(SluiceError) in
                try await client.get("json").xml().value
            }
            #expect(
                wrongType?.message.hasPrefix("unacceptable content-type: application/json (expected application/xml")
                    == true)
        }
    }

    @Test func propertyListsParse() async throws {
        try await Self.withClient { server, client in
            let date = Date(timeIntervalSince1970: 1_700_000_000)
            let plist: [String: Any] = [
                "name": "Ada", "age": 36, "ratio": 0.5, "admin": true, "joined": date, "blob": Data([0, 1]),
                "tags": ["a", "b"],
            ]
            for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
                let body = try PropertyListSerialization.data(fromPropertyList: plist, format: format, options: 0)
                server.script("/x", ScriptedResponse(headers: ["Content-Type": "application/x-plist"], body: body))
                let value = try await client.get("x").propertyList().value
                #expect(value["name"] == .string("Ada"))
                #expect(value["age"] == .integer(36))
                #expect(value["ratio"] == .real(0.5))
                #expect(value["admin"] == .bool(true))
                #expect(value["joined"] == .date(date))
                #expect(value["blob"] == .data(Data([0, 1])))
                #expect(value["tags"]?[1] == .string("b"))
            }
            #expect(PropertyListResponseSerializer.acceptableContentTypes == ["application/x-plist"])
        }
    }

    @Test func theCompoundSerializerPicksByContentType() async throws {
        try await Self.withClient { server, client in
            let plist = try PropertyListSerialization.data(fromPropertyList: ["k": "v"], format: .xml, options: 0)
            server.script("/json", .json(#"{"k":"v","n":null}"#))
            server.script("/xml", ScriptedResponse(headers: ["Content-Type": "text/xml"], body: Data("<k>v</k>".utf8)))
            server.script("/plist", ScriptedResponse(headers: ["Content-Type": "application/x-plist"], body: plist))
            server.script("/text", .text("k=v"))
            server.script("/none", ScriptedResponse(body: Data("raw".utf8)))
            #expect(try await client.get("json").serialized().value == .json(["k": "v", "n": nil]))
            #expect(try await client.get("json").serialized(removingNullValues: true).value == .json(["k": "v"]))
            #expect(try await client.get("xml").serialized().value == .xml(XMLValue(name: "k", text: "v")))
            #expect(try await client.get("plist").serialized().value == .propertyList(.dictionary(["k": .string("v")])))
            #expect(try await client.get("text").serialized().value == .string("k=v"))
            #expect(try await client.get("none").serialized().value == .string("raw"))
            #expect(try await client.get("plist").data().value == plist)
        }
    }

    @Test func decodingRunsOffTheTransportThread() async throws {
        try await Self.withClient { server, client in
            server.script("/x", .json("[1,2,3]"))
            let transportThreads = ThreadLog()
            let producer = client.get("x").on(value: { _ in transportThreads.record() })
            let probe = try await producer.decode(ThreadProbe.self).value
            // The response arrives on the loop thread, and the decoder runs on another one.
            let loopThread = try #require(transportThreads.all.first)
            #expect(probe.decodedOn != loopThread)
        }
    }

    @Test func aSlowDecodeDoesNotStallOtherTransfers() async throws {
        try await Self.withClient { server, client in
            server.script("/slow", .text("slow"))
            server.script("/fast", .text("fast"))
            // The slow serializer blocks until the test releases it, which it does only after another
            // transfer has completed. Were decoding on the transport's loop thread, that transfer could
            // not complete, and the serializer would give up after 10 s and return "stalled".
            let gate = DispatchSemaphore(value: 0)
            async let slowValue = client.get("slow").serialize(using: BlockingSerializer(gate: gate)).value
            try await Task.sleep(for: .milliseconds(50))
            let fast = try await client.get("fast").value
            gate.signal()
            #expect(fast.status == 200)
            #expect(try await slowValue == "slow")
        }
    }

    @Test func awaitingAFailedDecodeThrowsSluiceError() async throws {
        try await Self.withClient { server, client in
            server.script("/x", .text("not json"))
            await #expect(throws: SluiceError.self) { try await client.get("x").decode(Item.self).value }
            do throws(SluiceError) {
                _ = try await client.get("x").decode(Item.self).value
                Issue.record("expected a failure")
            } catch {
                #expect(error.code == .serializationFailed)
                #expect(error.message.hasPrefix("unacceptable content-type: text/plain"))
            }
        }
    }

    @Test func previewsEscapeControlCharacters() {
        let request = Request(method: .get, url: URL(string: "http://example.com/")!)
        let body = Data("line one\nline\ttwo\u{1}".utf8)
        let response = Response(status: 200, headers: ["Content-Type": "text/html"], body: body, request: request)
        #expect(throws: SluiceError.self) { try JSONResponseSerializer().serialize(response) }
        do {
            _ = try JSONResponseSerializer().serialize(response)
        } catch {
            #expect(error.message.hasSuffix(#"first bytes: line one\nline\ttwo\u{1}"#))
        }
    }
}

/// A serializer that takes 600 ms, to show it does not hold up the transport.
/// A serializer that waits (at most 10 s) for the test to release it.
private struct BlockingSerializer: ResponseSerializer {
    let gate: DispatchSemaphore
    var acceptableContentTypes: [String] { ["*/*"] }

    func serialize(_ response: Response) throws(SluiceError) -> String {
        guard gate.wait(timeout: .now() + 10) == .success else { return "stalled" }
        return String(decoding: response.body, as: UTF8.self)
    }
}
