import Testing

@testable import Sluice

@Suite("Durations in libcurl's units")
struct DurationConversionTests {
    @Test func wholeMillisecondsTruncate() {
        #expect(Duration.milliseconds(1500).wholeMilliseconds == 1500)
        #expect(Duration.microseconds(2_999).wholeMilliseconds == 2)
    }
}
