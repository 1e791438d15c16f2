import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// The percentiles found by selection must be exactly the nearest-rank percentiles of the sorted
/// window, for every size and for windows full of ties.
@Suite("LatencySummary")
struct LatencySummaryTests {
    /// Nearest-rank percentiles of the sorted values: the definition the summary documents.
    func expected(_ values: [Double]) -> LatencySummary {
        let sorted = values.sorted()
        func rank(_ p: Double) -> Duration {
            .timeInterval(sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))])
        }
        return LatencySummary(p50: rank(0.5), p90: rank(0.9), p99: rank(0.99), max: .timeInterval(sorted.last!))
    }

    @Test func selectionAgreesWithSortingForRandomWindows() {
        var generator = SystemRandomNumberGenerator()
        for count in [1, 2, 3, 5, 10, 99, 100, 101, 1000, 1024] {
            for _ in 0..<20 {
                let values = (0..<count).map { _ in Double.random(in: 0..<2, using: &generator) }
                #expect(LatencySummary(seconds: values) == expected(values), "\(count) values")
            }
        }
    }

    @Test func tiesSortedRunsAndReversedRuns() {
        let windows: [[Double]] = [
            Array(repeating: 0.25, count: 1024),
            (0..<1024).map { Double($0 % 3) },
            (0..<1024).map(Double.init),
            (0..<1024).reversed().map(Double.init),
            [0.5, 0.1],
        ]
        for values in windows {
            #expect(LatencySummary(seconds: values) == expected(values))
        }
    }

    @Test func anEmptyWindowIsZero() {
        #expect(LatencySummary(seconds: []) == .zero)
    }
}
