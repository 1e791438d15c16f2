import Foundation
import Sluice
import SluiceHAR
import SluiceTesting
import Testing

@Suite struct HARRecorderTests {
    @Test func aSessionIsWrittenAsAHAR12File() async throws {
        try await withServer { server, transport in
            let recorder = HARRecorder(bodies: true)
            let client = try Client(transport: recorder.transport(wrapping: transport))
            server.script(
                "/signed", ScriptedResponse(status: 302, headers: ["Location": "/status/200?sig=t0ps3cret&x=1"]))
            _ = try await client.get(server.url(for: .scripted(path: "/signed")).absoluteString).value
            _ = try await client.post(
                server.url(for: .echo).absoluteString,
                headers: ["Authorization": "Bearer abc", "Content-Type": "text/plain"],
                modify: { $0.body = .data(Data("hello HAR".utf8)) }
            ).value
            _ = try await client.get(server.url(for: .bytes(300)).absoluteString).value

            let file = try TemporaryFile(named: "session.har")
            defer { file.cleanUp() }
            try recorder.write(to: file.url)
            let data = try Data(contentsOf: file.url)
            let text = try #require(String(data: data, encoding: .utf8))
            #expect(!text.contains("t0ps3cret"))
            // Bodies are kept as they are: the echo's reply has the header as the server saw it.
            #expect(text.components(separatedBy: "Bearer abc").count == 2)

            let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let log = try #require(root["log"] as? [String: Any])
            #expect(log["version"] as? String == "1.2")
            let creator = try #require(log["creator"] as? [String: Any])
            #expect(creator["name"] is String && creator["version"] is String)
            let entries = try #require(log["entries"] as? [[String: Any]])
            #expect(entries.count == 4)  // the redirect's two hops, the post, the bytes
            for entry in entries { try checkEntry(entry) }

            let redirect = try #require(entries.first)
            let redirectResponse = try #require(redirect["response"] as? [String: Any])
            #expect(redirectResponse["status"] as? Int == 302)
            #expect(
                redirectResponse["redirectURL"] as? String
                    == "\(server.baseURL.absoluteString)status/200?sig=REDACTED&x=1")

            let post = try #require(entries.first { ($0["request"] as? [String: Any])?["method"] as? String == "POST" })
            let request = try #require(post["request"] as? [String: Any])
            let postData = try #require(request["postData"] as? [String: Any])
            #expect(postData["text"] as? String == "hello HAR")
            #expect(postData["mimeType"] as? String == "text/plain")
            let headers = try #require(request["headers"] as? [[String: Any]])
            #expect(
                headers.contains { $0["name"] as? String == "Authorization" && $0["value"] as? String == "REDACTED" })

            let bytes = try #require(entries.last)
            let content = try #require((bytes["response"] as? [String: Any])?["content"] as? [String: Any])
            #expect(content["size"] as? Int == 300)
            #expect(content["encoding"] as? String == "base64")
            #expect(Data(base64Encoded: content["text"] as? String ?? "") == MockServer.deterministicBytes(count: 300))
        }
    }

    @Test func bodiesAreLeftOutUnlessAskedFor() async throws {
        try await withServer { server, transport in
            let recorder = HARRecorder()
            let client = try Client(transport: recorder.transport(wrapping: transport))
            _ = try await client.post(
                server.url(for: .echo).absoluteString, modify: { $0.body = .data(Data("secret body".utf8)) }
            ).value
            let entry = try #require(recorder.entries.only)
            #expect(entry.request.postData?.text == "")
            #expect(entry.response.content.text == nil)
            #expect(entry.response.content.size > 0)
        }
    }

    @Test func aFailedTransferIsAnEntryWithItsError() async throws {
        let recorder = HARRecorder()
        try await RefusedAddress.withBaseURL { gone in
            let client = try Client(transport: recorder.transport(wrapping: CurlTransport()))
            await #expect(throws: SluiceError.self) { try await client.get(gone.absoluteString).value }
        }
        let entry = try #require(recorder.entries.only)
        #expect(entry.response.status == 0)
        #expect(entry._error?.contains("cannotConnect") == true)
    }

    @Test func aStreamedResponseIsRecordedToo() async throws {
        try await withServer { server, transport in
            let recorder = HARRecorder(bodies: true)
            let client = try Client(transport: recorder.transport(wrapping: transport))
            var received = 0
            for try await chunk in try client.stream(
                server.url(for: .chunkedBytes(count: 4, size: 1000)).absoluteString
            ).values {
                received += chunk.count
            }
            #expect(received == 4000)
            let entry = try #require(recorder.entries.only)
            #expect(entry.response.content.size == 4000)
            #expect(entry.timings.receive >= 0 && entry.timings.wait >= 0)
        }
    }

    /// Checks the fields HAR 1.2 requires of an entry, and their types.
    private func checkEntry(_ entry: [String: Any]) throws {
        let started = try #require(entry["startedDateTime"] as? String)
        #expect(try Date(started, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) <= Date())
        #expect((entry["time"] as? Double ?? -1) >= 0)
        #expect(entry["cache"] is [String: Any])
        let request = try #require(entry["request"] as? [String: Any])
        for key in ["method", "url", "httpVersion"] { #expect(request[key] is String, "request.\(key)") }
        for key in ["cookies", "headers", "queryString"] { #expect(request[key] is [Any], "request.\(key)") }
        for key in ["headersSize", "bodySize"] { #expect(request[key] is Int, "request.\(key)") }
        let response = try #require(entry["response"] as? [String: Any])
        for key in ["statusText", "httpVersion", "redirectURL"] { #expect(response[key] is String, "response.\(key)") }
        for key in ["status", "headersSize", "bodySize"] { #expect(response[key] is Int, "response.\(key)") }
        for key in ["cookies", "headers"] { #expect(response[key] is [Any], "response.\(key)") }
        let content = try #require(response["content"] as? [String: Any])
        #expect(content["size"] is Int && content["mimeType"] is String)
        let timings = try #require(entry["timings"] as? [String: Any])
        for key in ["send", "wait", "receive"] { #expect((timings[key] as? Double ?? -1) >= 0, "timings.\(key)") }
        for key in ["blocked", "dns", "connect", "ssl"] {
            #expect((timings[key] as? Double ?? -2) >= -1, "timings.\(key)")
        }
        let sum = ["blocked", "dns", "connect", "send", "wait", "receive"].reduce(0.0) {
            $0 + max(0, timings[$1] as? Double ?? 0)
        }
        #expect(abs(sum - (entry["time"] as? Double ?? 0)) < 0.01)
    }
}
