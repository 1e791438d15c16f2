import Foundation
import Testing

@testable import Sluice

/// The `Cache-Control` parser.
@Suite("Cache-Control parser")
struct CacheControlTests {
    @Test func readsEveryDirective() {
        let control = CacheControl(
            parsing:
                "public, private, no-cache, no-store, must-revalidate, proxy-revalidate, max-age=10, s-maxage=20, stale-while-revalidate=30, stale-if-error=40, immutable"
        )
        #expect(control.isPublic && control.isPrivate && control.noCache && control.noStore)
        #expect(control.mustRevalidate && control.proxyRevalidate && control.immutable)
        #expect(control.maxAge == 10)
        #expect(control.sharedMaxAge == 20)
        #expect(control.staleWhileRevalidate == 30)
        #expect(control.staleIfError == 40)
    }

    @Test func namesAreCaseInsensitiveAndSpacesAllowed() {
        let control = CacheControl(parsing: "  MAX-AGE = 60 ,No-Store,, ")
        #expect(control.maxAge == 60)
        #expect(control.noStore)
    }

    @Test func quotedValuesAreRead() {
        #expect(CacheControl(parsing: #"max-age="3600""#).maxAge == 3600)
        #expect(CacheControl(parsing: #"no-cache="Set-Cookie, X-A", max-age=5"#).maxAge == 5)
        #expect(CacheControl(parsing: #"no-cache="Set-Cookie, X-A", max-age=5"#).noCache)
    }

    @Test func theFirstOccurrenceWins() {
        #expect(CacheControl(parsing: "max-age=10, max-age=20").maxAge == 10)
    }

    @Test(arguments: [
        ("max-age=-1", 0), ("max-age=abc", 0), ("max-age=", 0), ("max-age", 0), ("max-age=1.5", 0),
        ("max-age=99999999999999999999", 2_147_483_648),
    ])
    func invalidOrHugeSecondsAreBounded(text: String, expected: Int) {
        #expect(CacheControl(parsing: text).maxAge == expected)
    }

    @Test func maxStaleWithoutAValueAcceptsAnyStaleness() {
        #expect(CacheControl(parsing: "max-stale").maxStale == Int.max)
        #expect(CacheControl(parsing: "max-stale=5").maxStale == 5)
    }

    @Test func severalFieldsAreRead() {
        var headers = HTTPHeaders()
        headers.add(name: "Cache-Control", value: "max-age=5")
        headers.add(name: "cache-control", value: "no-cache")
        let control = CacheControl(headers)
        #expect(control.maxAge == 5)
        #expect(control.noCache)
    }

    @Test func unknownDirectivesAreIgnored() {
        #expect(CacheControl(parsing: "community=\"UCI\", foo").isEmpty)
    }
}
