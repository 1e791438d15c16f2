import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Testing

/// A client on `https://api.example.com/v1/` whose every request gets this reply, without a network.
private func stubClient(
    status: Int = 200, headers: HTTPHeaders = [:], body: String = "", baseURL: String = "https://api.example.com/v1/"
) throws -> Client {
    try Client(
        baseURL: baseURL,
        transport: StubTransport(reply: .response(status: status, headers: headers, body: Data(body.utf8))))
}

/// The failure of a producer, or nil when it delivered a value.
private func failure(of producer: SignalProducer<Response, SluiceError>) async -> SluiceError? {
    do {
        _ = try await producer.value
        return nil
    } catch {
        return error
    }
}

private struct Rejected: Error, CustomStringConvertible {
    let description: String
}

private struct APIProblem: Decodable, Equatable {
    let error: String
    let fields: [String]
}

@Suite("Validation: status codes")
struct ValidationStatusTests {
    @Test(arguments: [
        (200, true), (201, true), (204, true), (299, true), (301, false), (304, false), (400, false),
        (404, false), (422, false), (500, false), (503, false),
    ])
    func validateAcceptsOnly2xx(status: Int, passes: Bool) async throws {
        try await withServer { server, transport in
            let client = try Client(transport: transport)
            let error = await failure(of: client.get(server.url(for: .status(status)).absoluteString).validate())
            #expect((error == nil) == passes)
            if let error {
                #expect(error.code == .unacceptableStatusCode)
                #expect(error.isValidationError)
                #expect(error.responseCode == status)
            }
        }
    }

    @Test(arguments: [100, 101, 199])
    func informationalStatusesAreNotSuccess(status: Int) async throws {
        let client = try stubClient(status: status)
        let error = await failure(of: client.get("x").validate())
        #expect(error?.code == .unacceptableStatusCode)
        #expect(await failure(of: client.get("x").validate(statusCode: 100..<200)) == nil)
    }

    @Test func rangesClosedRangesSetsAndArrays() async throws {
        for (status, range, closed, set, passesRange, passesClosed, passesSet) in [
            (200, 200..<300, 200...299, Set([201, 404]), true, true, false),
            (299, 200..<299, 200...299, Set([201, 404]), false, true, false),
            (404, 200..<300, 400...404, Set([201, 404]), false, true, true),
            (201, 300..<400, 100...199, Set([201, 404]), false, false, true),
        ] {
            let client = try stubClient(status: status)
            #expect(await failure(of: client.get("x").validate(statusCode: range)) == nil ? passesRange : !passesRange)
            #expect(
                await failure(of: client.get("x").validate(statusCode: closed)) == nil ? passesClosed : !passesClosed)
            #expect(await failure(of: client.get("x").validate(statusCode: set)) == nil ? passesSet : !passesSet)
            let array = Array(set)
            #expect(await failure(of: client.get("x").validate(statusCode: array)) == nil ? passesSet : !passesSet)
        }
        let client = try stubClient(status: 201)
        #expect(await failure(of: client.get("x").validate(statusCode: [201])) == nil)
        #expect(await failure(of: client.get("x").validate(statusCode: [Int]()))?.code == .unacceptableStatusCode)
        #expect(await failure(of: client.get("x").validate(statusCode: stride(from: 200, to: 300, by: 1))) == nil)
    }

    @Test func aFailedValidationKeepsTheResponseAndItsBody() async throws {
        try await withServer { server, transport in
            server.script("/nope", .json(#"{"error":"nope"}"#, status: 404))
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let error = try #require(await failure(of: client.get("nope").validate()))
            #expect(error.code == .unacceptableStatusCode)
            #expect(error.responseCode == 404)
            #expect(error.response?.body == Data(#"{"error":"nope"}"#.utf8))
            #expect(error.response?.headers["Content-Type"] == "application/json")
            #expect(error.response?.request.method == .get)
            let url = server.baseURL.appendingPathComponent("nope").absoluteString
            #expect(
                error.message
                    == #"Response status 404 is not acceptable (expected 200..<300) for GET \#(url); body: {"error":"nope"}"#
            )
        }
    }

    @Test func unvalidatedErrorStatusesAreResponses() async throws {
        let client = try stubClient(status: 500, body: "boom")
        let response = try await client.get("x").value
        #expect(response.status == 500)
    }
}

@Suite("Validation: content types")
struct ValidationContentTypeTests {
    @Test(arguments: [
        // Exact, case and parameters.
        ("application/json", "application/json", "{}", true),
        ("application/json", "application/json; charset=utf-8", "{}", true),
        ("APPLICATION/JSON", "Application/Json;Charset=UTF-8", "{}", true),
        ("application/json;charset=latin1", "application/json; charset=utf-8", "{}", true),
        ("application/json", "text/html", "<p>", false),
        ("application/json", "application/problem+json", "{}", false),
        // Wildcards.
        ("text/*", "text/html", "<p>", true),
        ("text/*", "application/json", "{}", false),
        ("*/*", "image/png", "png", true),
        ("*", "image/png", "png", true),
        ("application/xml, text/*;q=0.5", "text/plain", "x", true),
        (#"text/html;level="a,b", application/json"#, "application/json", "{}", true),
        // q=0 excludes, and the most specific range decides.
        ("application/json, text/html;q=0", "text/html", "<p>", false),
        ("text/*, text/html;q=0", "text/html", "<p>", false),
        ("text/*, text/html;q=0", "text/plain", "x", true),
        ("*/*;q=0, application/json", "application/json", "{}", true),
        ("*/*;q=0, application/json", "text/html", "<p>", false),
        ("text/*;q=0, text/html", "text/html", "<p>", true),
        ("application/json;q=0.0", "application/json", "{}", false),
        ("application/json;q=0.001", "application/json", "{}", true),
        ("application/json;q=bogus", "application/json", "{}", true),
        // A malformed Content-Type never passes.
        ("*/*", "garbage", "x", false),
        ("*/*", "", "x", false),
    ])
    func acceptMatching(accept: String, contentType: String, body: String, passes: Bool) async throws {
        let client = try stubClient(headers: ["Content-Type": contentType], body: body)
        let error = await failure(of: client.get("x", headers: ["Accept": accept]).validate())
        #expect((error == nil) == passes)
        if let error { #expect(error.code == .unacceptableContentType) }
    }

    @Test(arguments: [
        ("application/json", "", true),
        ("application/json", "{}", false),
        ("*/*", "{}", true),
        ("application/json, */*;q=0.1", "{}", true),
        ("application/json, */*;q=0", "{}", false),
    ])
    func missingContentType(accept: String, body: String, passes: Bool) async throws {
        let client = try stubClient(body: body)
        let error = await failure(of: client.get("x", headers: ["Accept": accept]).validate())
        #expect((error == nil) == passes)
        if let error { #expect(error.code == .unacceptableContentType) }
    }

    @Test func withoutAcceptOnlyTheStatusIsChecked() async throws {
        let client = try stubClient(headers: ["Content-Type": "text/html"], body: "<p>")
        #expect(await failure(of: client.get("x").validate()) == nil)
        #expect(await failure(of: client.get("x", headers: ["Accept": ""]).validate()) == nil)
    }

    @Test func theStatusIsCheckedBeforeTheContentType() async throws {
        let client = try stubClient(status: 404, headers: ["Content-Type": "text/html"], body: "<p>")
        let error = await failure(of: client.get("x", headers: ["Accept": "application/json"]).validate())
        #expect(error?.code == .unacceptableStatusCode)
    }

    @Test func explicitContentTypes() async throws {
        let client = try stubClient(headers: ["Content-Type": "application/vnd.api+json; charset=utf-8"], body: "{}")
        #expect(await failure(of: client.get("x").validate(contentType: ["application/vnd.api+json"])) == nil)
        #expect(await failure(of: client.get("x").validate(contentType: ["text/plain", "application/*"])) == nil)
        #expect(await failure(of: client.get("x").validate(contentType: ["*/*"])) == nil)
        let error = await failure(of: client.get("x").validate(contentType: ["application/json"]))
        #expect(error?.code == .unacceptableContentType)
        #expect(await failure(of: client.get("x").validate(contentType: []))?.code == .unacceptableContentType)
    }

    @Test func againstMockServerHeaders() async throws {
        try await withServer { server, transport in
            let client = try Client(transport: transport)
            let html = server.url(for: .responseHeaders([("Content-Type", "text/html; charset=UTF-8")])).absoluteString
            let json: HTTPHeaders = ["Accept": "application/json"]
            #expect(await failure(of: client.get(html, headers: json).validate())?.code == .unacceptableContentType)
            #expect(await failure(of: client.get(html, headers: ["Accept": "text/*"]).validate()) == nil)
            #expect(await failure(of: client.get(html, headers: ["Accept": "*/*"]).validate()) == nil)
            server.script("/json", .json(#"{"ok":true}"#))
            let scripted = server.baseURL.appendingPathComponent("json").absoluteString
            #expect(await failure(of: client.get(scripted, headers: json).validate()) == nil)
            server.script("/text", .text("hello"))
            let text = server.baseURL.appendingPathComponent("text").absoluteString
            #expect(await failure(of: client.get(text, headers: json).validate())?.code == .unacceptableContentType)
        }
    }
}

@Suite("Validation: custom rules and chains")
struct ValidationCustomTests {
    @Test func aThrowingRulePassesOrFailsWithTheErrorUnderneath() async throws {
        let client = try stubClient(headers: ["ETag": "\"v1\""], body: "ok")
        let passing = client.get("x").validate { request, response, body in
            if request.method != .get || response.headers["ETag"] == nil || body != Data("ok".utf8) {
                throw Rejected(description: "unexpected")
            }
        }
        #expect(try await passing.value.status == 200)

        let throwing = client.get("x").validate { _, response, _ in
            if response.headers["X-Signature"] == nil { throw Rejected(description: "unsigned response") }
        }
        let error = try #require(await failure(of: throwing))
        #expect(error.code == .validationFailed)
        #expect(error.isValidationError)
        #expect((error.underlyingError as? Rejected)?.description == "unsigned response")
        #expect(error.response?.body == Data("ok".utf8))
    }

    @Test func aResultRulePassesOrFails() async throws {
        let client = try stubClient(body: "ok")
        let passing = client.get("x").validate { _, response, _ in
            response.status == 200 ? .success(()) : .failure(Rejected(description: "not 200"))
        }
        #expect(try await passing.value.status == 200)

        let failing = client.get("x").validate { _, _, body -> Result<Void, any Error> in
            body.count > 10 ? .success(()) : .failure(Rejected(description: "too short"))
        }
        let error = try #require(await failure(of: failing))
        #expect(error.code == .validationFailed)
        #expect((error.underlyingError as? Rejected)?.description == "too short")
    }

    @Test func mapBeforeAndAfterValidate() async throws {
        let client = try stubClient(headers: ["ETag": "\"v1\""], body: "ok")
        #expect(try await client.get("x").map { $0 }.validate().value.status == 200)
        #expect(try await client.get("x").validate().map { $0.headers["ETag"] }.value == "\"v1\"")
        #expect(try await client.get("x").validate().validate(statusCode: [200]).value.body == Data("ok".utf8))

        let failing = try stubClient(status: 404, body: "gone")
        let mapped = failing.get("x").map { $0 }.validate().map { $0.headers["ETag"] }
        do {
            _ = try await mapped.value
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .unacceptableStatusCode)
            #expect(error.response?.body == Data("gone".utf8))
        }
    }

    @Test func eachStartValidatesAfresh() async throws {
        try await withServer { server, transport in
            server.script("/flip", .json("{}", status: 503), .json("{}", status: 200))
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let producer = client.get("flip").validate()
            #expect(await failure(of: producer)?.responseCode == 503)
            #expect(await failure(of: producer) == nil)
        }
    }
}

@Suite("Validation: decoding error bodies")
struct ValidationDecodeBodyTests {
    @Test func decodesA422ErrorBody() async throws {
        try await withServer { server, transport in
            server.script("/users", .json(#"{"error":"invalid","fields":["email","age"]}"#, status: 422))
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let error = try #require(await failure(of: client.post("users", json: ["email": "x"]).validate()))
            #expect(error.responseCode == 422)
            #expect(
                try error.decodeBody(as: APIProblem.self) == APIProblem(error: "invalid", fields: ["email", "age"]))
        }
    }

    @Test func aBodyThatDoesNotDecodeIsASerializationError() async throws {
        let client = try stubClient(status: 422, body: #"{"error":"invalid","fields":[1]}"#)
        let error = try #require(await failure(of: client.get("x").validate()))
        do {
            _ = try error.decodeBody(as: APIProblem.self)
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .serializationFailed)
            #expect(error.keyPath == "fields[0]")
            #expect(error.response?.status == 422)
            #expect(
                error.message
                    == #"The body of the status 422 response could not be decoded as APIProblem (expected String) for GET https://api.example.com/v1/x; body: {"error":"invalid","fields":[1]}"#
            )
        }
    }

    @Test func anErrorWithoutAResponseHasNoBodyToDecode() {
        let error = SluiceError(.timedOut, "Timed out.", timeout: .total)
        #expect(throws: SluiceError.self) { try error.decodeBody(as: APIProblem.self) }
        do {
            _ = try error.decodeBody(as: APIProblem.self)
        } catch {
            #expect(error.code == .serializationFailed)
            #expect(error.message == "This timedOut error has no response whose body could be decoded as APIProblem.")
        }
    }
}

@Suite("Validation: messages")
struct ValidationMessageTests {
    @Test func recordedMessages() async throws {
        let notFound = try stubClient(status: 404, body: #"{"error":"nope"}"#)
        #expect(
            await failure(of: notFound.get("x").validate())?.description
                == #"unacceptableStatusCode: Response status 404 is not acceptable (expected 200..<300) for GET https://api.example.com/v1/x; body: {"error":"nope"}"#
        )
        #expect(
            await failure(of: notFound.delete("x").validate(statusCode: [204, 200]))?.message
                == #"Response status 404 is not acceptable (expected one of 200, 204) for DELETE https://api.example.com/v1/x; body: {"error":"nope"}"#
        )
        #expect(
            await failure(of: notFound.get("x").validate(statusCode: 200..<300))?.message
                == #"Response status 404 is not acceptable (expected 200..<300) for GET https://api.example.com/v1/x; body: {"error":"nope"}"#
        )
        #expect(
            await failure(of: notFound.get("x").validate(statusCode: 200...299))?.message
                == #"Response status 404 is not acceptable (expected 200...299) for GET https://api.example.com/v1/x; body: {"error":"nope"}"#
        )

        let html = try stubClient(headers: ["Content-Type": "text/html; charset=utf-8"], body: "<h1>Hi</h1>\n\t\u{1B}")
        #expect(
            await failure(of: html.get("x", headers: ["Accept": "application/json, text/*;q=0"]).validate())?.message
                == #"Response Content-Type text/html; charset=utf-8 is not acceptable (accepts application/json) for GET https://api.example.com/v1/x; body: <h1>Hi</h1>\n\t\u{1B}"#
        )
        #expect(
            await failure(of: html.get("x").validate(contentType: ["application/json", "application/*"]))?.message
                == #"Response Content-Type text/html; charset=utf-8 is not acceptable (accepts application/json, application/*) for GET https://api.example.com/v1/x; body: <h1>Hi</h1>\n\t\u{1B}"#
        )

        let untyped = try stubClient(body: "plain")
        #expect(
            await failure(of: untyped.get("x", headers: ["Accept": "application/json"]).validate())?.message
                == "Response has no Content-Type for its 5-byte body (accepts application/json) for GET https://api.example.com/v1/x; body: plain"
        )

        let empty = try stubClient(status: 503)
        #expect(
            await failure(of: empty.head("x").validate())?.message
                == "Response status 503 is not acceptable (expected 200..<300) for HEAD https://api.example.com/v1/x; empty body"
        )

        let custom = try stubClient(body: "ok")
        let rule = custom.get("x").validate { _, _, _ in throw Rejected(description: "missing X-Signature") }
        #expect(
            await failure(of: rule)?.message
                == "Response status 200 failed validation (missing X-Signature) for GET https://api.example.com/v1/x; body: ok"
        )
    }

    @Test func longBodiesAreCutAtEightyBytesOnACharacterBoundary() async throws {
        let long = try stubClient(status: 500, body: String(repeating: "a", count: 79) + "é" + "tail")
        let error = try #require(await failure(of: long.get("x").validate()))
        #expect(error.message.hasSuffix("body: " + String(repeating: "a", count: 79) + "… (85 bytes)"))
        // The whole body, on request.
        #expect(error.responseBodyText == String(repeating: "a", count: 79) + "é" + "tail")

        let exact = try stubClient(status: 500, body: String(repeating: "b", count: 80))
        let whole = try #require(await failure(of: exact.get("x").validate())?.message)
        #expect(whole.hasSuffix("body: " + String(repeating: "b", count: 80)))
    }

    @Test func bodiesAndQueryParametersThatMentionSecretsAreNotShown() async throws {
        let client = try stubClient(status: 401, body: #"{"error":"expired","access_token":"eyJhbGciOi"}"#)
        let error = try #require(
            await failure(of: client.get("me", parameters: ["api_key": "k3y", "page": 2]).validate()))
        #expect(!error.message.contains("eyJhbGciOi"))
        #expect(!error.message.contains("k3y"))
        #expect(error.message.contains("api_key=***&page=2"), "\(error.message)")
        #expect(error.message.hasSuffix(#"body: 47 bytes, not shown as it mentions "token" (see responseBodyText)"#))
        #expect(error.responseBodyText?.contains("eyJhbGciOi") == true)
    }

    @Test func binaryBodiesAndCredentialsAreNotPrinted() async throws {
        let client = try Client(
            baseURL: "https://user:s3cret@api.example.com/v1/",
            transport: StubTransport(reply: .response(status: 500, body: Data([0xFF, 0xFE, 0x00, 0x01]))))
        let message = try #require(await failure(of: client.get("x").validate())?.message)
        #expect(
            message
                == "Response status 500 is not acceptable (expected 200..<300) for GET https://api.example.com/v1/x; body: 4 bytes, not UTF-8 text"
        )
    }
}
