import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

@Suite("A request URL's text, checked before sending")
struct HTTPURLTextTests {
    @Test(arguments: [
        "http://a.test", "https://a.test/", "HTTP://a.test/x", "HtTpS://a.test:8443/x?q=1#f",
        "http://user:pass@a.test/", "http://us@er@a.test/", "http://127.0.0.1:8080/small", "http://[::1]:80/",
        "http://a.test?q=1", "http://a.test#f", "http://a.test/p%20q",
    ])
    func acceptedURLsHaveAnHTTPSchemeAndAHost(_ text: String) throws {
        #expect(HTTPURLText.problem(in: text) == nil)
        // Foundation agrees: the scheme is http(s) and the host is there.
        let url = try #require(URL(string: text))
        #expect(["http", "https"].contains(url.scheme?.lowercased()))
        #expect(url.host(percentEncoded: true)?.isEmpty == false)
    }

    @Test(arguments: [
        "ftp://a.test/f", "file:///etc/passwd", "httpx://a.test/", "htt://a.test/", "gopher://a.test/",
        "mailto:a@b.test", "a.test/path", "/relative/path", "",
    ])
    func otherSchemesAreRefused(_ text: String) {
        #expect(HTTPURLText.problem(in: text) == .scheme)
    }

    @Test(arguments: [
        "http:", "http:a.test/x", "http:/a.test", "http:///path", "http://:80/", "http://user@/x",
        "http://?q=1", "http://#f", "http://[]/", "https://",
    ])
    func aMissingOrEmptyHostIsRefused(_ text: String) {
        #expect(HTTPURLText.problem(in: text) == .host)
    }

    @Test func spacesControlCharactersAndDeleteAreRefused() {
        for byte: UInt8 in [0x20, 0x09, 0x0A, 0x0D, 0x00, 0x7F] {
            let text = "http://a.test/x" + String(UnicodeScalar(byte)) + "y"
            #expect(HTTPURLText.problem(in: text) == .forbiddenByte, "byte \(byte)")
        }
    }

    @Test func aForbiddenByteInTheAuthorityIsRefusedAndUTF8IsNot() {
        for byte: UInt8 in [0x20, 0x01, 0x7F] {
            let text = "http://a" + String(UnicodeScalar(byte)) + ".test/x"
            #expect(HTTPURLText.problem(in: text) == .forbiddenByte, "byte \(byte)")
        }
        // Bytes from 0x80 are UTF-8's, in the host as in the path; `!` and `~` bound the rest.
        #expect(HTTPURLText.problem(in: "http://bücher.test/straße?q=ü#é") == nil)
        #expect(HTTPURLText.problem(in: "http://a.test/!~") == nil)
        #expect(HTTPURLText.problem(in: "http://!a~.test") == nil)
        let loneContinuationByte: [UInt8] = Array("http://a".utf8) + [0x80] + Array(".test/".utf8)
        #expect(loneContinuationByte.withUnsafeBufferPointer { HTTPURLText.problem(in: $0) } == nil)
        // An `@` after the authority is the path's, not user information.
        #expect(HTTPURLText.problem(in: "http://a.test/@x") == nil)
        #expect(HTTPURLText.problem(in: "http://u@/x") == .host)
        // A forbidden byte after the authority's end, with user information before it.
        #expect(HTTPURLText.problem(in: "http://u@a.test?q=a b") == .forbiddenByte)
    }

    @Test func preparingARequestNamesTheProblem() throws {
        func message(_ text: String) throws -> String {
            let request = Request(url: try #require(URL(string: text)))
            do {
                _ = try request.prepared()
                return ""
            } catch {
                #expect(error.code == .invalidURL)
                return error.message
            }
        }
        #expect(try message("ftp://a.test/f").contains("Only http and https"))
        #expect(try message("http:///path").contains("has no host"))
        #expect(try message("http://a.test/ok").isEmpty)
    }
}
