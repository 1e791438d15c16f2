import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

@Suite("Default headers merged with a request's own")
struct DefaultHeadersMergeTests {
    private let defaults = DefaultHeadersInterceptor(["Accept-Language": "en", "User-Agent": "test/1"]).headers

    @Test func aMergeOfCheckedDefaultsAndValidFieldsIsMarkedChecked() {
        let request = Request(url: URL(string: "http://a.test/")!, headers: ["Content-Type": "text/plain"])
        let merged = DefaultHeadersInterceptor.apply(defaults, to: request)
        #expect(merged.headers.isKnownValid)
        #expect(merged.headers.count == 3)
        #expect(throws: Never.self) { try merged.prepared() }
    }

    @Test(arguments: [("X-Evil", "a\r\nX-Injected: 1"), ("Bad Name", "1"), ("X-Nul", "a\u{0}b"), ("", "1")])
    func anInvalidFieldOfTheRequestLeavesTheMergeUncheckedAndIsRefused(name: String, value: String) {
        var request = Request(url: URL(string: "http://a.test/")!)
        request.headers.add(name: name, value: value)
        let merged = DefaultHeadersInterceptor.apply(defaults, to: request)
        #expect(!merged.headers.isKnownValid)
        #expect(throws: SluiceError.self) { try merged.prepared() }
    }

    @Test func uncheckedDefaultsAreNeverMarked() {
        // Defaults that did not pass their check (kept as given) mark nothing they are merged into.
        let bad = DefaultHeadersInterceptor(["X-Evil": "a\nb"]).headers
        let request = Request(url: URL(string: "http://a.test/")!, headers: ["X-Mine": "1"])
        let merged = DefaultHeadersInterceptor.apply(bad, to: request)
        #expect(!merged.headers.isKnownValid)
        #expect(throws: SluiceError.self) { try merged.prepared() }
    }

    @Test func theRequestsOwnFieldsWinInAnyCaseAndTheDefaultsKeepTheirOrder() {
        let defaults = HTTPHeaders([
            ("Accept", "*/*"), ("Accept-Language", "en"), ("accept", "text/html"), ("X-Key", "k"),
        ])
        var request = Request(url: URL(string: "http://a.test/")!, headers: ["accept-language": "fr"])
        request.headers.add(name: "X-Mine", value: "1")
        let merged = DefaultHeadersInterceptor.apply(defaults, to: request, skipping: ["x-key"])
        // The request's fields first, as they were; then each default whose name is not there yet,
        // the first of a repeated name only; a skipped name never.
        #expect(merged.headers.map(\.name) == ["accept-language", "X-Mine", "Accept"])
        #expect(merged.headers.map(\.value) == ["fr", "1", "*/*"])
        // The request it came from is unchanged.
        #expect(request.headers.count == 2)
    }
}
