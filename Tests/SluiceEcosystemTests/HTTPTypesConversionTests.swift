import Foundation
import HTTPTypes
import Sluice
import SluiceHTTPTypes
import SluiceTesting
import Testing

@Suite struct HTTPTypesConversionTests {
    @Test func headersGoToFieldsAndBackInOrderWithTheirSpelling() throws {
        let headers: HTTPHeaders = ["X-Trace": "a", "accept": "text/plain", "X-Trace": "b"]
        let fields = try HTTPFields(headers)
        #expect(fields.map(\.name.rawName) == ["X-Trace", "accept", "X-Trace"])
        #expect(fields[values: HTTPField.Name("x-trace")!] == ["a", "b"])
        #expect(HTTPHeaders(fields) == headers)
        #expect(HTTPHeaders(fields).map(\.name) == ["X-Trace", "accept", "X-Trace"])
    }

    @Test func fieldsGoToHeadersAndBack() throws {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields.append(HTTPField(name: .cookie, value: "a=1"))
        fields.append(HTTPField(name: .cookie, value: "b=2"))
        #expect(try HTTPFields(HTTPHeaders(fields)) == fields)
    }

    @Test func headersSwiftHTTPTypesCannotHoldFailWithTheirName() {
        #expect(throws: SluiceError.self) { try HTTPFields(["Bad Name": "x"]) }
        do {
            _ = try HTTPFields(["X-Injected": "a\r\nEvil: 1"])
            Issue.record("A value with CR LF was converted.")
        } catch {
            #expect(error.code == .invalidHeader)
            #expect(error.message.contains("X-Injected"))
        }
    }

    @Test func aRequestBecomesItsPseudoHeadersAndFields() throws {
        let request = Request(
            method: .patch, url: URL(string: "https://user:pw@example.com:8443/a%20b/c?q=1&r=%2F#frag")!,
            headers: ["Accept": "application/json"])
        let http = try HTTPRequest(request)
        #expect(http.method == .patch)
        #expect(http.scheme == "https")
        #expect(http.authority == "example.com:8443")
        #expect(http.path == "/a%20b/c?q=1&r=%2F")
        #expect(http.headerFields[.accept] == "application/json")
    }

    @Test func anIPv6HostKeepsItsBrackets() throws {
        let http = try HTTPRequest(Request(url: URL(string: "http://[::1]:8080/")!))
        #expect(http.authority == "[::1]:8080")
        #expect(try Request(http).url.absoluteString == "http://[::1]:8080/")
    }

    @Test func anHTTPRequestBecomesARequestAndBackUnchanged() throws {
        var fields = HTTPFields()
        fields[.userAgent] = "test"
        fields.append(HTTPField(name: HTTPField.Name("X-Many")!, value: "1"))
        fields.append(HTTPField(name: HTTPField.Name("X-Many")!, value: "2"))
        let http = HTTPRequest(
            method: .put, scheme: "http", authority: "example.com", path: "/x?y=%20", headerFields: fields)
        let request = try Request(http, body: .data(Data("body".utf8)))
        #expect(request.method == .put)
        #expect(request.url.absoluteString == "http://example.com/x?y=%20")
        #expect(request.headers.values(for: "x-many") == ["1", "2"])
        #expect(try HTTPRequest(request) == http)
    }

    @Test func anHTTPRequestWithoutAnAuthorityHasNoURL() {
        let connect = HTTPRequest(method: .connect, scheme: nil, authority: "example.com:443", path: nil)
        #expect(throws: SluiceError.self) { try Request(connect) }
        let asterisk = HTTPRequest(method: .options, scheme: "http", authority: "example.com", path: "*")
        #expect(throws: SluiceError.self) { try Request(asterisk) }
    }

    @Test func aMethodThatIsNoTokenFails() {
        let request = Request(method: "GET POST", url: URL(string: "http://example.com/")!)
        #expect(throws: SluiceError.self) { try HTTPRequest(request) }
    }

    @Test func aResponseHeadGoesBothWays() throws {
        let head = ResponseHead(status: 418, headers: ["Content-Type": "text/plain", "X-A": "1"], httpVersion: .http2)
        let http = try HTTPResponse(head)
        #expect(http.status.code == 418)
        #expect(http.headerFields[.contentType] == "text/plain")
        #expect(ResponseHead(http, httpVersion: .http2) == head)
        #expect(throws: SluiceError.self) {
            try HTTPResponse(ResponseHead(status: 1000, headers: [:], httpVersion: .http1_1))
        }
    }

    @Test func aConvertedRequestReachesARealServerAsItSaid() async throws {
        try await withServer { server, transport in
            let client = try Client(transport: transport)
            var fields = HTTPFields()
            fields[HTTPField.Name("X-Converted")!] = "yes"
            fields[.contentType] = "text/plain"
            let url = server.url(for: .echo)
            let http = HTTPRequest(
                method: .post, scheme: "http", authority: "\(server.host):\(server.port)", path: url.path,
                headerFields: fields)
            let response = try await client.send(try Request(http, body: .data(Data("hello".utf8)))).value
            let reply = try echo(of: response)
            #expect(reply.method == "POST")
            #expect(reply.header("X-Converted") == "yes")
            #expect(reply.body == "hello")
            let back = try HTTPResponse(response)
            #expect(back.status == .ok)
            #expect(back.headerFields[.contentType] == response.headers["Content-Type"])
        }
    }
}
