import Foundation
import Sluice
import Testing

/// Headers written as a list of fields, and the curl command line of what a client sends.
@Suite("Header literals and curl descriptions")
struct HeaderLiteralTests {
    @Test func headersCanBeWrittenAsAListOfFields() {
        let headers: HTTPHeaders = [
            .bearer("t0k"), .accept("application/json"), .contentType("text/csv"), .userAgent("app/1.0"),
            .acceptLanguage("fr"), .init(name: "X-Trace", value: "on"), .init(name: "X-Trace", value: "again"),
        ]
        #expect(headers["Authorization"] == "Bearer t0k")
        #expect(headers["Accept"] == "application/json")
        #expect(headers["Content-Type"] == "text/csv")
        #expect(headers["User-Agent"] == "app/1.0")
        #expect(headers["Accept-Language"] == "fr")
        #expect(headers.values(for: "x-trace") == ["on", "again"], "order kept, names may repeat")
        #expect(headers == HTTPHeaders(headers.map { $0 }))
    }

    @Test func theClientsCurlDescriptionShowsTheHeadersItAdds() throws {
        var configuration = Client.Configuration()
        configuration.defaultHeaders = [.userAgent("app/1.0"), .accept("application/json")]
        configuration.authorization = .bearer("s3cret")
        let client = try Client(baseURL: "https://api.example.com/", configuration: configuration)
        let request = try client.makeRequest(.get, "me", headers: [.accept("text/plain")])
        #expect(!request.curlDescription.contains("User-Agent"), "the request alone has its own headers only")
        let line = client.curlDescription(for: request)
        #expect(line.contains("-H 'User-Agent: app/1.0'"))
        #expect(line.contains("-H 'Accept: text/plain'"), "the request's own header wins")
        #expect(!line.contains("application/json"))
        #expect(line.contains("-H 'Authorization: ***'"))
        #expect(client.curlDescription(for: request, redactingAuthorization: false).contains("Bearer s3cret"))
    }
}
