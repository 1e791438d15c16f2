import Foundation
import Sluice
import Testing

@Suite struct RedactionTests {
    @Test func aURLLosesItsPasswordAndSecretQueryValues() {
        let url = URL(string: "https://ada:pw@example.com/a?X-Amz-Signature=abc&page=2&TOKEN=t&flag")!
        #expect(
            Redaction.default.url(url)
                == "https://ada:REDACTED@example.com/a?X-Amz-Signature=REDACTED&page=2&TOKEN=REDACTED&flag")
    }

    @Test func aURLWithoutSecretsIsWrittenAsItWas() {
        let text = "http://example.com/a%20b?q=%2F&x"
        #expect(Redaction.default.url(URL(string: text)!) == text)
    }

    @Test func secretHeadersKeepTheirNameAndPlace() {
        let headers: HTTPHeaders = ["accept": "*/*", "authorization": "Bearer x", "X-API-Key": "k", "Cookie": "a=1"]
        let redacted = Redaction.default.headers(headers)
        #expect(redacted.map(\.name) == headers.map(\.name))
        #expect(redacted.map(\.value) == ["*/*", "REDACTED", "REDACTED", "REDACTED"])
    }

    @Test func aRedactionOfOnesOwnNamesOnlyThose() {
        let redaction = Redaction(headers: ["X-Session"], queryItems: ["session"])
        #expect(redaction.headers(["X-Session": "s", "Authorization": "a"]).map(\.value) == ["REDACTED", "a"])
        #expect(redaction.url(URL(string: "http://h/?session=1&token=2")!) == "http://h/?session=REDACTED&token=2")
    }
}
