import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Testing

/// Encoded requests sent with `CurlTransport` to MockServer's echo endpoint: what the server decoded.
extension ParameterEncodingTests {
    func echoed(_ request: Request, transport: CurlTransport) async throws -> EchoReply {
        let response = try await transport.response(for: request.prepared()).value
        #expect(response.status == 200)
        return try JSONDecoder().decode(EchoReply.self, from: response.body)
    }

    @Test func queryParametersReachTheServer() async throws {
        try await withServer { server, transport in
            let url = try #require(URL(string: server.url(for: .echo).absoluteString + "?x=1"))
            let parameters: Parameters = [
                "user": ["name": "Ada Lovelace", "tags": ["a&b", "c=d"], "nick": nil],
                "q": "a+b/c?d #e", "emoji": "👨‍👩‍👧👍🏽", "中文": "e\u{301}", "on": true,
            ]
            let request = try URLEncoding.default.encode(Request(method: .get, url: url), with: parameters)
            let echo = try await echoed(request, transport: transport)
            #expect(echo.method == "GET")
            #expect(echo.query == "x=1&" + URLEncoding.queryString(parameters))
            #expect(echo.queryItems["x"] == ["1"])
            #expect(echo.queryItems["user[name]"] == ["Ada Lovelace"])
            #expect(echo.queryItems["user[tags][]"] == ["a&b", "c=d"])
            #expect(echo.queryItems["user[nick]"] == [""])
            #expect(echo.queryItems["q"] == ["a+b/c?d #e"])
            #expect(echo.queryItems["emoji"] == ["👨‍👩‍👧👍🏽"])
            #expect(echo.queryItems["中文"] == ["e\u{301}"])
            #expect(echo.queryItems["on"] == ["1"])
            #expect(echo.bodyLength == 0)
        }
    }

    @Test func formBodiesReachTheServer() async throws {
        try await withServer { server, transport in
            let parameters: Parameters = ["b": [1, 2], "a": "x y", "s": .set(["z", "é"])]
            for method: HTTPMethod in [.post, .put, .patch] {
                let request = try URLEncoding.default.encode(
                    Request(method: method, url: server.url(for: .echo)), with: parameters)
                let echo = try await echoed(request, transport: transport)
                #expect(echo.method == method.rawValue)
                #expect(echo.query == nil || echo.query == "")
                #expect(echo.header("Content-Type") == "application/x-www-form-urlencoded")
                #expect(echo.body == "a=x%20y&b%5B%5D=1&b%5B%5D=2&s%5B%5D=%C3%A9&s%5B%5D=z")
            }
            let empty = try URLEncoding.default.encode(Request(method: .post, url: server.url(for: .echo)), with: [:])
            let echo = try await echoed(empty, transport: transport)
            #expect(echo.bodyLength == 0)
            #expect(echo.header("Content-Length") == "0")
            #expect(echo.header("Content-Type") == "application/x-www-form-urlencoded")
        }
    }

    @Test func deleteAndHeadCarryTheirParametersInTheQuery() async throws {
        try await withServer { server, transport in
            let request = try URLEncoding.default.encode(
                Request(method: .delete, url: server.url(for: .echo)), with: ["id": [7, 8]])
            let echo = try await echoed(request, transport: transport)
            #expect(echo.method == "DELETE")
            #expect(echo.queryItems["id[]"] == ["7", "8"])
            let head = try URLEncoding.default.encode(
                Request(method: .head, url: server.url(for: .echo)), with: ["h": "1"])
            let response = try await transport.response(for: head.prepared()).value
            #expect(response.status == 200)
            #expect(server.recordedRequests.last?.queryItems["h"] == ["1"])
        }
    }

    @Test func jsonBodiesReachTheServer() async throws {
        try await withServer { server, transport in
            let request = try JSONEncoding.default.encode(
                Request(method: .post, url: server.url(for: .echo)), withJSONArray: [["id": 1, "t": "👍🏽"], nil])
            let echo = try await echoed(request, transport: transport)
            #expect(echo.header("Content-Type") == "application/json")
            #expect(echo.body == #"[{"id":1,"t":"👍🏽"},null]"#)
            let typed = try JSONEncoding.default.encode(
                Request(method: .put, url: server.url(for: .echo)), with: EncodableProfile())
            let typedEcho = try await echoed(typed, transport: transport)
            let body = try #require(typedEcho.bodyData)
            #expect(try JSONDecoder().decode(EncodableProfile.self, from: body) == EncodableProfile())
        }
    }

    @Test func encodableQueriesReachTheServer() async throws {
        try await withServer { server, transport in
            let request = try URLEncoding.default.encode(
                Request(method: .get, url: server.url(for: .echo)), with: EncodableProfile())
            let echo = try await echoed(request, transport: transport)
            #expect(echo.query == Self.profileQuery)
            #expect(echo.queryItems["homepage"] == ["https://example.com/a?b=c"])
            #expect(echo.queryItems["avatar"] == ["AAEC+g=="])
            #expect(echo.queryItems["born"] == ["1970-01-01T00:00:00Z"])
            #expect(echo.queryItems["tags[]"] == ["math", "poetry"])
        }
    }
}
