import Synchronization

/// Printing helpers for the tour.
enum Tour {
    private static let stepNumber = Mutex(0)

    /// Prints the heading of the next step.
    static func step(_ title: String) {
        let number = stepNumber.withLock { n -> Int in
            n += 1
            return n
        }
        print("\n[\(number)] \(title)")
    }
}
