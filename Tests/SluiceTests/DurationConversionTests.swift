import Testing

@testable import Sluice

@Suite("Durations from libcurl's figures")
struct DurationConversionTests {
    @Test(arguments: [Int64(0), 1, 999_999, 1_000_000, 1_234_567, 86_400_000_000, Int64.max / 2])
    func microsecondsMakeTheSameDurationAsTheStandardLibrary(_ microseconds: Int64) {
        #expect(Duration.curlMicroseconds(microseconds) == .microseconds(microseconds))
    }

    @Test func wholeMillisecondsTruncate() {
        #expect(Duration.milliseconds(1500).wholeMilliseconds == 1500)
        #expect(Duration.microseconds(2_999).wholeMilliseconds == 2)
    }
}
