import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// Sluice's own HTTP-date parser (RFC 9110 §5.6.7), checked against Foundation's `DateFormatter`
/// and against the rules DateFormatter does not know.
@Suite("HTTPDate")
struct HTTPDateTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14

    /// Foundation's reading of `text` in `format`, as the reference.
    func foundation(_ format: String, _ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter.string(from: date)
    }

    @Test func theThreeFormsName1994sExample() {
        let expected = Date(timeIntervalSince1970: 784_111_777)  // RFC 9110's example instant
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now) == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994", now: now) == expected)
    }

    @Test func agreesWithFoundationAcrossTheCalendar() {
        // Every 3,001,003 seconds over ~60 years: leap years, month ends and both centuries' days.
        var instant = -400_000_000.0
        while instant < 1_500_000_000 {
            let date = Date(timeIntervalSince1970: instant)
            let imf = foundation("EEE, dd MMM yyyy HH:mm:ss 'GMT'", date)
            let asctime = foundation("EEE MMM d HH:mm:ss yyyy", date)
            #expect(HTTPDate.parse(imf, now: now) == date, "\(imf)")
            #expect(HTTPDate.parse(asctime, now: now) == date, "\(asctime)")
            instant += 3_001_003
        }
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 23:59:59 GMT", now: now) != nil, "a leap day")
        #expect(
            HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT", now: now) == Date(timeIntervalSince1970: 253_402_300_799))
    }

    @Test func rfc850YearsMoreThanFiftyYearsAheadAreInThePast() {
        // Now is 2023: "73" is 2073 (50 years ahead), "74" is 1974 (51 ahead would be 2074).
        let in2073 = HTTPDate.parse("Monday, 02-Jan-73 00:00:00 GMT", now: now)
        let in1974 = HTTPDate.parse("Wednesday, 02-Jan-74 00:00:00 GMT", now: now)
        #expect(in2073 == Date(timeIntervalSince1970: 3_250_540_800))
        #expect(in1974 == Date(timeIntervalSince1970: 126_316_800))
    }

    @Test func namesAreCaseInsensitiveAndSpacesCollapse() {
        let expected = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.parse("sun, 06 nov 1994 08:49:37 gmt", now: now) == expected)
        #expect(HTTPDate.parse("Sun,  06   Nov 1994 08:49:37   GMT", now: now) == expected)
    }

    @Test(arguments: [
        "", "soon", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 31 Nov 1994 08:49:37 GMT",
        "Sun, 29 Feb 1900 08:49:37 GMT", "Sun, 06 Nox 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT",
        "Son, 06 Nov 1994 08:49:37 GMT", "Sun 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT",
        "Sun, 06-Nov-94 08:49:37 GMT", "Sun Nov 6 08:49:37 94", "Sun, 00 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:3x GMT",
    ])
    func malformedDatesAreRefused(_ text: String) {
        #expect(HTTPDate.parse(text, now: now) == nil)
    }
}

/// The small text helpers that replace Foundation-only calls.
@Suite("Text helpers")
struct TextHelperTests {
    @Test func pathExtensionsAsNSStringGaveThem() {
        #expect(MultipartFormData.pathExtension(of: "photo.JPG") == "JPG")
        #expect(MultipartFormData.pathExtension(of: "archive.tar.gz") == "gz")
        #expect(MultipartFormData.pathExtension(of: "dir.d/README") == "")
        #expect(MultipartFormData.pathExtension(of: ".profile") == "")
        #expect(MultipartFormData.pathExtension(of: "a/b/c.txt") == "txt")
        #expect(MultipartFormData.pathExtension(of: "trailing.") == "")
        #expect(MultipartFormData.pathExtension(of: "") == "")
    }

    @Test func oneDecimalRoundsATieToEvenAsPercentPointOneFDoes() {
        #expect(LoggingInterceptor.oneDecimal(0) == "0.0")
        #expect(LoggingInterceptor.oneDecimal(1.25) == "1.2")
        #expect(LoggingInterceptor.oneDecimal(1.35) == "1.4")
        #expect(LoggingInterceptor.oneDecimal(1023.96) == "1024.0")
        #expect(LoggingInterceptor.size(1536) == "1.5 KB")
        #expect(LoggingInterceptor.size(5 << 20) == "5.0 MB")
        #expect(LoggingInterceptor.size(12) == "12 B")
    }

    @Test func quotesAreTrimmedFromBothEnds() {
        #expect("\"0.5\"".trimmingQuotes() == "0.5")
        #expect("\"\"".trimmingQuotes() == "")
        #expect("a\"b".trimmingQuotes() == "a\"b")
    }
}
