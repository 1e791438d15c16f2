import Testing

@testable import Sluice

@Suite("Durations in libcurl's units")
struct DurationConversionTests {
    @Test func wholeMillisecondsTruncate() {
        #expect(Duration.milliseconds(1500).wholeMilliseconds == 1500)
        #expect(Duration.microseconds(2_999).wholeMilliseconds == 2)
        #expect(Duration.microseconds(-2_999).wholeMilliseconds == -2)
    }

    /// A timeout too long for 64 bits of milliseconds is "as long as can be": it trapped once, on
    /// the transport's thread, taking the process down.
    @Test func durationsBeyondSixtyFourBitsSaturate() {
        #expect(Duration.seconds(Int64.max).wholeMilliseconds == .max)
        #expect(Duration.seconds(Int64.min).wholeMilliseconds == .min)
        #expect(Duration.seconds(Int64.max / 1000).wholeMilliseconds == Int64.max / 1000 * 1000)
        #expect(Duration.seconds(Int64.max).wholeMicroseconds == .max)
    }
}
